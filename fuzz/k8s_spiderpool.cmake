# The render profile's Spiderpool subnet plan (railRanges' IPv4 parser, the
# block arithmetic) and the Spiderpool lint rules on what it renders.
railkit_add_fuzzer(k8s_spiderpool_fuzz SOURCE k8s_spiderpool_fuzz.cc LIBS railkit_k8s
  SEEDS ${CMAKE_CURRENT_SOURCE_DIR}/seeds/k8s_spiderpool)
