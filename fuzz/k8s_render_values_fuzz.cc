// Any value, well-formed output (docs/render.md, "Profile"): the input's
// bytes become the free-form values of a profile (image, railkitImage,
// resourceName, hcas, shmSize) and the render's mode, launcher and tool.
// When render accepts them, what it writes must
//   - parse as YAML (railkit's reader),
//   - have exactly the keys, in every object, of the same render with plain
//     stand-ins of the same emptiness (a value never adds or hides a key),
//   - hold every value as a scalar that reads back byte for byte.
// A value render refuses is fine; a crash, or any of the above failing, is a
// finding (__builtin_trap).
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "k8s/render/render.h"
#include "k8s/yaml.h"

namespace {

using railkit::k8s::YamlNode;
using railkit::k8s::render::Profile;

void keyPaths(const YamlNode& node, const std::string& path, std::set<std::string>& out) {
  if (node.isMap()) {
    for (const auto& entry : node.entries) {
      out.insert(path + "/" + entry.first);
      keyPaths(entry.second, path + "/" + entry.first, out);
    }
  } else if (node.isSeq()) {
    for (size_t i = 0; i < node.items.size(); ++i)
      keyPaths(node.items[i], path + "[" + std::to_string(i) + "]", out);
  }
}

void scalars(const YamlNode& node, std::set<std::string>& out) {
  if (node.isScalar()) out.insert(node.value);
  for (const auto& entry : node.entries) scalars(entry.second, out);
  for (const auto& item : node.items) scalars(item, out);
}

bool render(const Profile& profile, std::set<std::string>& keys, std::set<std::string>* values) {
  auto objects = railkit::k8s::render::renderProfile(profile);
  if (!objects) return false;
  auto stream = railkit::k8s::parseYaml(railkit::k8s::render::toYaml(*objects), "rendered.yaml");
  if (!stream) __builtin_trap();  // render wrote YAML its own reader cannot read
  for (size_t d = 0; d < stream->documents.size(); ++d) {
    keyPaths(stream->documents[d].root, "#" + std::to_string(d), keys);
    if (values) scalars(stream->documents[d].root, *values);
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 3) return 0;
  static const char* kModes[] = {"rdma-shared", "sriov", "host-device", "dra", "host-network", "gke-tcpxo"};
  static const char* kLaunchers[] = {"mpijob", "indexed-job", "jobset", "trainjob", "volcano-job"};
  static const char* kTools[] = {"nccl-tests", "railkit", "perftest", "validate"};
  Profile base;
  base.mode = kModes[data[0] % 6];
  base.launcher = kLaunchers[data[1] % 5];
  base.test.tool = kTools[data[2] % 4];
  base.fabric = base.mode == "gke-tcpxo" ? "tcpxo" : "roce";
  base.nodes = 2;
  base.job_token = "fuzz-job-token-0123456789abcdef0123";
  // The rest: up to five values, NUL-separated.
  std::vector<std::string> fields;
  std::string_view rest(reinterpret_cast<const char*>(data) + 3, size - 3);
  for (size_t start = 0; fields.size() < 5;) {
    size_t end = rest.find('\0', start);
    fields.emplace_back(
        rest.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  fields.resize(5);
  Profile hostile = base, plain = base;
  hostile.image = fields[0].empty() ? "img" : fields[0];
  plain.image = "img";
  hostile.railkit_image = fields[1];
  plain.railkit_image = fields[1].empty() ? "" : "rk";
  // resourceName is a key of the limits: the stand-in is the value itself
  // (it has passed the check by the time the keys are compared).
  hostile.resource_name = fields[2];
  plain.resource_name = fields[2];
  if (!fields[3].empty()) {
    hostile.hcas = {fields[3]};
    plain.hcas = {"mlx5_0"};
  }
  if (!fields[4].empty()) {
    hostile.shm_size = fields[4];
    plain.shm_size = "1Gi";
  }
  if (!railkit::k8s::render::finishProfile(hostile)) return 0;
  if (!railkit::k8s::render::finishProfile(plain)) __builtin_trap();  // the stand-ins are valid
  std::set<std::string> hostile_keys, plain_keys, values;
  bool hostile_ok = render(hostile, hostile_keys, &values);
  bool plain_ok = render(plain, plain_keys, nullptr);
  if (hostile_ok != plain_ok) __builtin_trap();  // a value decided whether render works
  if (!hostile_ok) return 0;
  if (hostile_keys != plain_keys) __builtin_trap();  // a value changed the objects' keys
  // Both images stand alone as some container's image: each must read back
  // as it was given. (resourceName is a key of the limits, checked above.)
  if (values.count(hostile.image) == 0) __builtin_trap();
  if (!hostile.railkit_image.empty() && values.count(hostile.railkit_image) == 0) __builtin_trap();
  return 0;
}
