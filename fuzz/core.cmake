railkit_add_fuzzer(name_list_fuzz SOURCE name_list_fuzz.cc LIBS railkit_core)
railkit_add_fuzzer(pair_links_fuzz SOURCE pair_links_fuzz.cc LIBS railkit_core
  SEEDS ${CMAKE_CURRENT_SOURCE_DIR}/seeds/pair_links)
