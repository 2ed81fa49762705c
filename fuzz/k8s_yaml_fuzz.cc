// Fuzzes the YAML front end and the lint rules on whatever it produced.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "k8s/lint/lint.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto manifest = railkit::k8s::loadManifest(text, "fuzz.yaml");
  if (!manifest) return 0;
  railkit::k8s::LintInput input;
  input.manifests.push_back(std::move(*manifest));
  railkit::k8s::prepareLintInput(input);
  (void)railkit::k8s::runLint(input);
  return 0;
}
