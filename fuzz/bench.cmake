railkit_add_fuzzer(bench_rendezvous_fuzz SOURCE bench_rendezvous_fuzz.cc LIBS railkit_bench)
railkit_add_fuzzer(bench_size_fuzz SOURCE bench_size_fuzz.cc LIBS railkit_bench
  SEEDS ${CMAKE_CURRENT_SOURCE_DIR}/seeds/bench_options)
