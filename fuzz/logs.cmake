railkit_add_fuzzer(logs_nccl_tests_fuzz SOURCE logs_nccl_tests_fuzz.cc LIBS railkit_logs
  SEEDS ${RAILKIT_SHARED_DIR}/data/nccl-tests ${RAILKIT_SHARED_DIR}/data/nccl-logs)
