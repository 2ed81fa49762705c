# sys/model parsers: kernel text, PCI config space, hwloc XML.
railkit_add_fuzzer(sys_text_fuzz SOURCE sys_text_fuzz.cc LIBS railkit_sys)
railkit_add_fuzzer(sys_pci_config_fuzz SOURCE sys_pci_config_fuzz.cc LIBS railkit_sys)
railkit_add_fuzzer(sys_hwloc_fuzz SOURCE sys_hwloc_fuzz.cc LIBS railkit_model
  SEEDS ${RAILKIT_SHARED_DIR}/topologies/hwloc)
