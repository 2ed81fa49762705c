# bench pairs over 5 netns nodes with one node's net1 rate-limited (tc tbf).
add_test(NAME bench_netns_pairs_ratelimit
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/pairs_ratelimit_test.sh $<TARGET_FILE:railkit>)
set_tests_properties(bench_netns_pairs_ratelimit PROPERTIES
  SKIP_RETURN_CODE 77 RESOURCE_LOCK netns TIMEOUT 120)
# --expect-line-rate graded across 2 rate-limited netns nodes.
add_test(NAME bench_netns_line_rate
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/pairs_line_rate_test.sh $<TARGET_FILE:railkit>)
set_tests_properties(bench_netns_line_rate PROPERTIES
  SKIP_RETURN_CODE 77 RESOURCE_LOCK netns TIMEOUT 120)
# Many ranks per netns node (48 over 8), started with a soft open-file limit
# of 64: the bootstrap and the tcp mesh at a size past the old caps.
add_test(NAME bench_netns_scale_48
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/scale_test.sh $<TARGET_FILE:railkit>)
set_tests_properties(bench_netns_scale_48 PROPERTIES
  SKIP_RETURN_CODE 77 RESOURCE_LOCK netns TIMEOUT 180)
# A collective over 4 netns nodes with one node's net1 throttled (tc tbf):
# it completes, every size has a row, #wrong 0 (the bench half of the
# degraded-link case; validate_netns_degraded is validate's).
add_test(NAME bench_netns_degraded_all_reduce
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/degraded_collective_test.sh $<TARGET_FILE:railkit>)
set_tests_properties(bench_netns_degraded_all_reduce PROPERTIES
  SKIP_RETURN_CODE 77 RESOURCE_LOCK netns TIMEOUT 180)
railkit_plain_pass_only(bench_netns_degraded_all_reduce
  "waits on a 100 Mbit/s node; the sanitizers see all_reduce over tcp in bench_netns_env_tcp_2")
