railkit_add_fuzzer(logs_nccl_log_fuzz SOURCE logs_nccl_log_fuzz.cc LIBS railkit_logs
  SEEDS ${RAILKIT_SHARED_DIR}/data/nccl-logs ${CMAKE_SOURCE_DIR}/tests/fixtures/logs/nccl
    ${CMAKE_SOURCE_DIR}/tests/fixtures/logs/transport ${CMAKE_SOURCE_DIR}/tests/logs/fixtures/real)
