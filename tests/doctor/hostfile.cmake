# MPI hostfile parsing, resolvers, the mpi-hostfile-unresolvable rule, the
# wait-dns loop, and the CLI end to end (doctor --hostfile, wait-dns). Names
# resolve only from hosts files the tests write, never through DNS.
railkit_add_gtest(doctor_hostfile_tests
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/hostfile_parser_test.cc ${CMAKE_CURRENT_LIST_DIR}/hostfile_resolve_test.cc
  LIBS railkit_doctor)
railkit_add_gtest(doctor_hostfile_cli_tests
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/hostfile_cli_test.cc
  LIBS railkit_node_builder railkit_core)
add_dependencies(doctor_hostfile_cli_tests railkit)
