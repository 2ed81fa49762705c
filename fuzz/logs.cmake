railkit_add_fuzzer(logs_nccl_tests_fuzz SOURCE logs_nccl_tests_fuzz.cc LIBS railkit_logs
  SEEDS ${RAILKIT_SHARED_DIR}/data/nccl-tests ${RAILKIT_SHARED_DIR}/data/nccl-logs)
railkit_add_fuzzer(logs_perftest_fuzz SOURCE logs_perftest_fuzz.cc LIBS railkit_logs
  SEEDS ${RAILKIT_SHARED_DIR}/data/perftest)
railkit_add_fuzzer(logs_line_reader_fuzz SOURCE logs_line_reader_fuzz.cc LIBS railkit_logs
  SEEDS ${RAILKIT_SHARED_DIR}/data/nccl-logs)
railkit_add_fuzzer(logs_input_fuzz SOURCE logs_input_fuzz.cc LIBS railkit_logs
  SEEDS ${RAILKIT_SHARED_DIR}/data/nccl-logs ${RAILKIT_SHARED_DIR}/data/nccl-tests ${RAILKIT_SHARED_DIR}/data/perftest
    ${CMAKE_SOURCE_DIR}/tests/logs/fixtures/real)
