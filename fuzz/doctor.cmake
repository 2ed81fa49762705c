# MPI hostfile parser and FQDN rewriter. The manifests seed dir holds MPIJob
# and JobSet YAML with embedded hostfile lines (slots=...).
railkit_add_fuzzer(doctor_hostfile_fuzz SOURCE doctor_hostfile_fuzz.cc LIBS railkit_doctor
  SEEDS ${RAILKIT_SHARED_DIR}/data/manifests)
