# seeds/k8s_yaml holds inputs that found something (libfyaml-233-single-quotes.yaml
# leaked in libfyaml, the reader before libyaml), the alias and merge-key
# forms and pod specs found by their shape; tests/k8s/fixtures/lenient the
# upstream files kubectl reads leniently, tests/k8s/fixtures/real the real
# manifests lint is tested on (old MPIJob shapes, Volcano, LeaderWorkerSet, DRA).
railkit_add_fuzzer(k8s_yaml_fuzz SOURCE k8s_yaml_fuzz.cc LIBS railkit_k8s
  SEEDS ${CMAKE_CURRENT_SOURCE_DIR}/seeds/k8s_yaml ${RAILKIT_SHARED_DIR}/data/manifests
        ${PROJECT_SOURCE_DIR}/tests/k8s/fixtures/lenient ${PROJECT_SOURCE_DIR}/tests/k8s/fixtures/real)
railkit_add_fuzzer(k8s_schema_fuzz SOURCE k8s_schema_fuzz.cc LIBS railkit_k8s
  SEEDS ${RAILKIT_SHARED_DIR}/schemas/crds)
# render's free-form values (image, railkitImage, resourceName, hcas,
# shmSize) from the input's bytes: refused, or rendered with the keys of the
# same render with plain stand-ins and each image read back as given.
railkit_add_fuzzer(k8s_render_values_fuzz SOURCE k8s_render_values_fuzz.cc LIBS railkit_k8s
  SEEDS ${CMAKE_CURRENT_SOURCE_DIR}/seeds/k8s_render_values)
