# sys/model parsers: kernel text, PCI config space, RDMA netlink replies, hwloc XML.
railkit_add_fuzzer(sys_text_fuzz SOURCE sys_text_fuzz.cc LIBS railkit_sys)
railkit_add_fuzzer(sys_pci_config_fuzz SOURCE sys_pci_config_fuzz.cc LIBS railkit_sys)
railkit_add_fuzzer(sys_hwloc_fuzz SOURCE sys_hwloc_fuzz.cc LIBS railkit_model
  SEEDS ${RAILKIT_SHARED_DIR}/topologies/hwloc)
railkit_add_fuzzer(sys_rdma_netlink_fuzz SOURCE sys_rdma_netlink_fuzz.cc LIBS railkit_sys
  SEEDS ${CMAKE_CURRENT_SOURCE_DIR}/seeds/rdma_netlink)
