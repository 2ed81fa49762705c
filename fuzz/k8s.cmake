railkit_add_fuzzer(k8s_yaml_fuzz SOURCE k8s_yaml_fuzz.cc LIBS railkit_k8s
  SEEDS ${RAILKIT_SHARED_DIR}/data/manifests)
railkit_add_fuzzer(k8s_schema_fuzz SOURCE k8s_schema_fuzz.cc LIBS railkit_k8s
  SEEDS ${RAILKIT_SHARED_DIR}/schemas/crds)
