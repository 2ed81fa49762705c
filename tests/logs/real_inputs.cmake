# railkit logs on real pasted inputs (fixtures/real, sources in its README).
railkit_add_gtest(logs_real_inputs_test SOURCES real_inputs_test.cc LIBS railkit_logs)
# The transport from GID spellings, plugin nets, TCPX and pasted bodies (tests/fixtures/logs/transport).
railkit_add_gtest(logs_transport_forms_test SOURCES transport_forms_test.cc LIBS railkit_logs)
