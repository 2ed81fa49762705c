// Fuzzes the schema validator: the input is split at the first "\n...\n"
// into a CRD (the schema) and an object validated against it, so both the
// schema walker and the value walker see hostile input.
#include <cstddef>
#include <cstdint>
#include <string>

#include "k8s/schema.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  size_t split = text.find("\n...\n");
  std::string crd = split == std::string::npos ? text : text.substr(0, split);
  std::string object = split == std::string::npos ? text : text.substr(split + 5);
  auto set = railkit::k8s::SchemaSet::fromTexts({}, {crd});
  if (!set) return 0;
  auto manifest = railkit::k8s::loadManifest(object, "fuzz.yaml");
  if (!manifest) return 0;
  for (const auto& item : (*manifest)->objects) (void)set->validate(item);
  return 0;
}
