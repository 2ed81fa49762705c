# Both reach libfyaml (fuzz/CMakeLists.txt: SLOW_UNWIND). seeds/k8s_yaml holds
# inputs that found something: libfyaml-233-single-quotes.yaml is libfyaml's
# own leak (tests/bench/lsan.supp).
railkit_add_fuzzer(k8s_yaml_fuzz SLOW_UNWIND SOURCE k8s_yaml_fuzz.cc LIBS railkit_k8s
  SEEDS ${CMAKE_CURRENT_SOURCE_DIR}/seeds/k8s_yaml ${RAILKIT_SHARED_DIR}/data/manifests)
railkit_add_fuzzer(k8s_schema_fuzz SLOW_UNWIND SOURCE k8s_schema_fuzz.cc LIBS railkit_k8s
  SEEDS ${RAILKIT_SHARED_DIR}/schemas/crds)
