# fabric: the ibnetdiscover parser, then the rail view, every check and both
# views of the report. Seeds: the real captures of tests/fixtures/fabric and
# fuzz/seeds/ibnetdiscover (what ibnetdiscover printed of a 2-node, 2-rail
# ibsim fabric with a 1x link, and a net file of make_rail_fabric.py).
railkit_add_fuzzer(fabric_ibnetdiscover_fuzz SOURCE fabric_ibnetdiscover_fuzz.cc LIBS railkit_fabric
  SEEDS ${PROJECT_SOURCE_DIR}/tests/fixtures/fabric ${CMAKE_CURRENT_SOURCE_DIR}/seeds/ibnetdiscover)
# sminfo's output, then the subnet-manager checks. Seeds: what sminfo printed
# against ibsim with OpenSM running and with none (stdout and stderr).
railkit_add_fuzzer(fabric_sminfo_fuzz SOURCE fabric_sminfo_fuzz.cc LIBS railkit_fabric
  SEEDS ${CMAKE_CURRENT_SOURCE_DIR}/seeds/sminfo)
# perfquery's output, then fabric-port-errors. Seed: a block perfquery
# printed against ibsim after PerformanceSet raised a counter.
railkit_add_fuzzer(fabric_perfquery_fuzz SOURCE fabric_perfquery_fuzz.cc LIBS railkit_fabric
  SEEDS ${CMAKE_CURRENT_SOURCE_DIR}/seeds/perfquery)
# --hca-map, then the rail view it names. Seed: the test fixture's map.
railkit_add_fuzzer(fabric_hca_map_fuzz SOURCE fabric_hca_map_fuzz.cc LIBS railkit_fabric
  SEEDS ${PROJECT_SOURCE_DIR}/tests/fixtures/fabric)
# iblinkinfo's output, then fabric-port-down. Seeds: lines iblinkinfo printed
# against ibsim (a CA block, two switches, a port Down/Polling) and the real
# capture of tests/fixtures/fabric/iblinkinfo.
railkit_add_fuzzer(fabric_iblinkinfo_fuzz SOURCE fabric_iblinkinfo_fuzz.cc LIBS railkit_fabric
  SEEDS ${CMAKE_CURRENT_SOURCE_DIR}/seeds/iblinkinfo ${PROJECT_SOURCE_DIR}/tests/fixtures/fabric/iblinkinfo)
# lldpctl's JSON (json and json0), then the Ethernet fabric of two nodes, its
# checks and its scheduler outputs. Seeds: the real captures of
# tests/fixtures/fabric/lldp.
railkit_add_fuzzer(fabric_lldp_fuzz SOURCE fabric_lldp_fuzz.cc LIBS railkit_fabric
  SEEDS ${PROJECT_SOURCE_DIR}/tests/fixtures/fabric/lldp)
