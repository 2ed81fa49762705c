# MPI hostfile parser and FQDN rewriter. The manifests seed dir holds MPIJob
# and JobSet YAML with embedded hostfile lines (slots=...).
railkit_add_fuzzer(doctor_hostfile_fuzz SOURCE doctor_hostfile_fuzz.cc LIBS railkit_doctor
  SEEDS ${RAILKIT_SHARED_DIR}/data/manifests)
# live.json routing/dcb through the inventory and every doctor rule (RoCE
# multi-rail, PFC/ECN/TC, IPoIB); seeds are the JSON the tests write.
railkit_add_fuzzer(doctor_live_json_fuzz SOURCE doctor_live_json_fuzz.cc LIBS railkit_doctor railkit_model
  SEEDS ${CMAKE_CURRENT_SOURCE_DIR}/seeds/live_json)
