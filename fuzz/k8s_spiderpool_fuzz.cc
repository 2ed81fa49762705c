// Fuzzes the render profile's Spiderpool fields (cni, subnetPlan, railRanges,
// nodeBlockSize, nodeNames, podsPerNode: the IPv4 network parser and the plan
// arithmetic) through parse, finish and render, and the Spiderpool lint rules
// on the rendered objects.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "k8s/lint/lint.h"
#include "k8s/render/render.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto profile = railkit::k8s::render::parseProfile(text, "fuzz.yaml");
  if (!profile) return 0;
  // Bounded so one input cannot ask for millions of pools.
  if (profile->nodes > 64 || profile->subnets.node_names.size() > 64 || profile->data_interfaces.size() > 16)
    return 0;
  profile->job_token = "fuzz-job-token-0123456789abcdef0123";
  auto objects = railkit::k8s::render::renderProfile(*profile);
  if (!objects) return 0;
  auto manifest = railkit::k8s::loadManifest(railkit::k8s::render::toYaml(*objects), "rendered.yaml");
  if (!manifest) __builtin_trap();  // the render must always be YAML the loader reads
  railkit::k8s::LintInput input;
  input.manifests.push_back(std::move(*manifest));
  railkit::k8s::prepareLintInput(input);
  (void)railkit::k8s::runLint(input);
  return 0;
}
