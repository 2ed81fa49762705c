# railkit logs: reader, parsers, grading and the CLI end to end.
railkit_add_gtest(logs_line_reader_test SOURCES line_reader_test.cc LIBS railkit_logs)
railkit_add_gtest(logs_perftest_test SOURCES perftest_test.cc LIBS railkit_logs)
railkit_add_gtest(logs_grade_test SOURCES grade_test.cc LIBS railkit_logs fmt::fmt)
railkit_add_gtest(logs_cli_test SOURCES cli_test.cc LIBS railkit_node_builder fmt::fmt nlohmann_json::nlohmann_json)
add_dependencies(logs_cli_test railkit)
