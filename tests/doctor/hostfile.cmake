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
# The wait loop's deadline with lookups that never return (fake and real
# clock), doctor --hostfile bounded, hosts files that are FIFOs or devices.
railkit_add_gtest(doctor_wait_dns_deadline_tests
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/wait_dns_deadline_test.cc
  LIBS railkit_doctor)
# wait-dns and doctor --hostfile against a nameserver that never answers, in a
# network namespace (root; skipped otherwise). The namespace's resolv.conf
# points at dead_dns_server on its own loopback: no query leaves it.
add_executable(dead_dns_server ${CMAKE_CURRENT_LIST_DIR}/dead_dns_server.cc)
add_test(NAME doctor_wait_dns_dead_nameserver
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/wait_dns_netns_test.sh $<TARGET_FILE:railkit>
          $<TARGET_FILE:dead_dns_server>)
set_tests_properties(doctor_wait_dns_dead_nameserver PROPERTIES
  SKIP_RETURN_CODE 77 RESOURCE_LOCK netns TIMEOUT 180)
railkit_plain_pass_only(doctor_wait_dns_dead_nameserver
  "waits out resolver timeouts; doctor_wait_dns_deadline_tests run the same deadline code")
