# NCCL debug log analysis: rules on fixtures, the real logs in ../shared, robustness, the per-rank view.
railkit_add_gtest(logs_nccl_log_rules_test SOURCES nccl_log_rules_test.cc LIBS railkit_logs)
railkit_add_gtest(logs_nccl_log_shared_test SOURCES nccl_log_shared_test.cc LIBS railkit_logs)
railkit_add_gtest(logs_nccl_log_robust_test SOURCES nccl_log_robust_test.cc LIBS railkit_logs)
railkit_add_gtest(logs_nccl_ranks_test SOURCES nccl_ranks_test.cc LIBS railkit_logs)
railkit_add_gtest(logs_key_index_test SOURCES key_index_test.cc LIBS railkit_logs)
railkit_add_gtest(logs_report_test SOURCES report_test.cc LIBS railkit_logs)
railkit_add_gtest(logs_hca_list_test SOURCES hca_list_test.cc LIBS railkit_logs)
railkit_add_gtest(logs_table_skip_test SOURCES table_skip_test.cc LIBS railkit_logs)
