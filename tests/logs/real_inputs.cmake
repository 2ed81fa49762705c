# railkit logs on real pasted inputs (fixtures/real, sources in its README).
railkit_add_gtest(logs_real_inputs_test SOURCES real_inputs_test.cc LIBS railkit_logs)
