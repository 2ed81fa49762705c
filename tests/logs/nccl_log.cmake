# NCCL debug log analysis: rules on fixtures, the real logs in ../shared, robustness.
railkit_add_gtest(logs_nccl_log_rules_test SOURCES nccl_log_rules_test.cc LIBS railkit_logs)
railkit_add_gtest(logs_nccl_log_shared_test SOURCES nccl_log_shared_test.cc LIBS railkit_logs)
railkit_add_gtest(logs_nccl_log_robust_test SOURCES nccl_log_robust_test.cc LIBS railkit_logs)
