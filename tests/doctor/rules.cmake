# Every doctor rule over NodeBuilder trees (fires on a broken tree, silent on
# healthy DGX H100 IB and RoCE nodes), and doctor/explain end to end.
railkit_add_gtest(doctor_rules_tests
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/rules_test.cc
  LIBS railkit_doctor railkit_node_builder)
# memlock-limit and rdma-port-down on real /proc captures (tests/fixtures/doctor/procfs).
railkit_add_gtest(doctor_limits_tests
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/process_limits_test.cc
  LIBS railkit_doctor railkit_node_builder)
railkit_add_gtest(doctor_cli_tests
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/cli_test.cc
  LIBS railkit_node_builder railkit_k8s railkit_core)
add_dependencies(doctor_cli_tests railkit)
# The RoCE multi-rail / lossless rules and ib-ipoib-missing on hand-built inventories.
railkit_add_gtest(doctor_roce_rules_tests
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/roce_rules_test.cc
  LIBS railkit_doctor)
# The roce-multirail-* rules on a real network namespace (root; skips otherwise).
add_test(NAME doctor_roce_multirail_netns
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/roce_multirail_netns_test.sh $<TARGET_FILE:railkit>)
set_tests_properties(doctor_roce_multirail_netns PROPERTIES
  SKIP_RETURN_CODE 77 RESOURCE_LOCK netns TIMEOUT 120)
