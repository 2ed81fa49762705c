# process-crash on real crash output (fixtures/real), its parser and the CLI.
railkit_add_gtest(logs_process_crash_test SOURCES process_crash_test.cc LIBS railkit_logs nlohmann_json::nlohmann_json)
add_dependencies(logs_process_crash_test railkit)
