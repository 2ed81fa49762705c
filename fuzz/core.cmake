railkit_add_fuzzer(name_list_fuzz SOURCE name_list_fuzz.cc LIBS railkit_core)
