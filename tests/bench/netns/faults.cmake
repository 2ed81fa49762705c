# Fault suite for the tcp data path (helper bench-tcp). Included by glob from
# tests/bench/netns/CMakeLists.txt. Each test sets short stall/bootstrap
# timeouts (5 s) and checks every surviving rank exits 3 in time.
set(rk_fault_dir ${CMAKE_CURRENT_LIST_DIR})
foreach(n 2 3)
  foreach(mode kill linkdown)
    add_test(NAME bench_netns_fault_tcp_${mode}_${n}
      COMMAND bash ${rk_fault_dir}/fault_tcp_test.sh $<TARGET_FILE:railkit> ${n} ${mode})
    set_tests_properties(bench_netns_fault_tcp_${mode}_${n} PROPERTIES
      SKIP_RETURN_CODE 77 RESOURCE_LOCK netns TIMEOUT 90)
  endforeach()
endforeach()
foreach(mode master three)
  add_test(NAME bench_netns_fault_missing_peer_${mode}
    COMMAND bash ${rk_fault_dir}/fault_missing_peer_test.sh $<TARGET_FILE:railkit> ${mode})
  set_tests_properties(bench_netns_fault_missing_peer_${mode} PROPERTIES
    SKIP_RETURN_CODE 77 RESOURCE_LOCK netns TIMEOUT 60)
endforeach()
add_test(NAME bench_netns_fault_foreign_client
  COMMAND bash ${rk_fault_dir}/fault_foreign_client_test.sh $<TARGET_FILE:railkit>)
set_tests_properties(bench_netns_fault_foreign_client PROPERTIES
  SKIP_RETURN_CODE 77 RESOURCE_LOCK netns TIMEOUT 90)
# In-process unit tests of the tcp transport (striping, stall, lost peer,
# bootstrap timeout messages); declared here so no other list needs a line.
railkit_add_gtest(bench_tcp_unit_tests
  SOURCES ${rk_fault_dir}/../tcp_transport_test.cc
  LIBS railkit_bench)
foreach(test bench_netns_fault_tcp_kill_3 bench_netns_fault_tcp_linkdown_3 bench_netns_fault_missing_peer_three)
  railkit_plain_pass_only(${test} "a third rank repeats the two-rank fault path that runs under the sanitizers")
endforeach()
