# UCX backend and mpirun suites (helper bench-ucx-mpi). Included by glob from
# tests/bench/netns/CMakeLists.txt; the UCX unit/e2e tests sit in
# tests/bench/ucx and are declared here too, so no other list needs a line.
get_target_property(rk_bench_public_defs railkit_bench INTERFACE_COMPILE_DEFINITIONS)
get_target_property(rk_bench_defs railkit_bench COMPILE_DEFINITIONS)
set(rk_have_ucx OFF)
set(rk_have_mpi OFF)
if(rk_bench_public_defs MATCHES "RAILKIT_HAVE_UCX")
  set(rk_have_ucx ON)
endif()
if(rk_bench_defs MATCHES "RAILKIT_HAVE_MPI")
  set(rk_have_mpi ON)
endif()
set(rk_ucx_dir ${CMAKE_CURRENT_LIST_DIR}/../ucx)

if(rk_have_ucx)
  railkit_add_gtest(bench_ucx_unit_tests
    SOURCES ${rk_ucx_dir}/ucx_config_test.cc ${rk_ucx_dir}/ucx_stream_test.cc
    LIBS railkit_bench)
  railkit_add_gtest(bench_ucx_e2e_tests
    SOURCES ${rk_ucx_dir}/ucx_e2e_test.cc
    LIBS railkit_bench)
  add_dependencies(bench_ucx_e2e_tests railkit)
  if(rk_have_mpi)
    target_compile_definitions(bench_ucx_e2e_tests PRIVATE RAILKIT_TEST_HAVE_MPI=1)
  endif()
  # Env bootstrap, --backend ucx, UCX_TLS=tcp: every op, several types, N=2 and 3.
  foreach(n 2 3)
    add_test(NAME bench_netns_ucx_env_${n}
      COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/ucx_env_test.sh ${RAILKIT_DIST_BINARY} ${n})
    set_tests_properties(bench_netns_ucx_env_${n} PROPERTIES
      SKIP_RETURN_CODE 77 RESOURCE_LOCK netns TIMEOUT 180 FIXTURES_REQUIRED "${RAILKIT_DIST_FIXTURE}")
  endforeach()
  # A rank killed / net1 down mid-run under ucx: the survivor exits 3 in time.
  foreach(mode kill linkdown)
    add_test(NAME bench_netns_ucx_fault_${mode}
      COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/ucx_fault_test.sh $<TARGET_FILE:railkit> ${mode})
    set_tests_properties(bench_netns_ucx_fault_${mode} PROPERTIES
      SKIP_RETURN_CODE 77 RESOURCE_LOCK netns TIMEOUT 90)
  endforeach()
endif()

# mpirun inside node 1 reaching the other nodes through an `ip netns exec` rsh agent.
# These and the UCX env runs launch the shipped binary (RAILKIT_DIST_BINARY),
# which finds Debian's Open MPI and UCX at run time.
if(rk_have_mpi)
  set(rk_mpirun_backends tcp)
  if(rk_have_ucx)
    list(APPEND rk_mpirun_backends ucx)
  endif()
  foreach(backend IN LISTS rk_mpirun_backends)
    foreach(n 2 3)
      add_test(NAME bench_netns_mpirun_${backend}_${n}
        COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/mpirun_test.sh ${RAILKIT_DIST_BINARY} ${n} ${backend})
      set_tests_properties(bench_netns_mpirun_${backend}_${n} PROPERTIES
        SKIP_RETURN_CODE 77 RESOURCE_LOCK netns TIMEOUT 180 FIXTURES_REQUIRED "${RAILKIT_DIST_FIXTURE}")
    endforeach()
  endforeach()
endif()
foreach(test bench_netns_ucx_env_3 bench_netns_mpirun_tcp_3 bench_netns_mpirun_ucx_3)
  if(TEST ${test})
    railkit_plain_pass_only(${test} "N=3 repeats N=2's code; three local ranks run under the sanitizers in bench_e2e_tests")
  endif()
endforeach()
