# Every doctor rule over NodeBuilder trees (fires on a broken tree, silent on
# healthy DGX H100 IB and RoCE nodes), and doctor/explain end to end.
railkit_add_gtest(doctor_rules_tests
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/rules_test.cc
  LIBS railkit_doctor railkit_node_builder)
railkit_add_gtest(doctor_cli_tests
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/cli_test.cc
  LIBS railkit_node_builder railkit_k8s railkit_core)
add_dependencies(doctor_cli_tests railkit)
# The RoCE multi-rail / lossless rules and ib-ipoib-missing on hand-built inventories.
railkit_add_gtest(doctor_roce_rules_tests
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/roce_rules_test.cc
  LIBS railkit_doctor)
