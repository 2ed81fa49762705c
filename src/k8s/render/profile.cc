#include "k8s/render/profile.h"

#include <algorithm>

#include "core/strings.h"
#include "k8s/yaml.h"

namespace railkit::k8s::render {
namespace {

Status readInt(const YamlNode* node, int& out, const std::string& where, const char* key, uint64_t max) {
  if (node == nullptr) return okStatus();
  auto value = parseUint(node->text());
  if (!value || *value == 0 || *value > max)
    return makeError(ErrorCode::kInvalidInput, where + ":" + std::to_string(node->line) + ": " + key +
                                                   " expects a whole number from 1 to " +
                                                   std::to_string(max) + ", found '" + node->value + "'");
  out = static_cast<int>(*value);
  return okStatus();
}

void readList(const YamlNode* node, std::vector<std::string>& out) {
  if (node == nullptr) return;
  out.clear();
  if (node->isSeq()) {
    for (const YamlNode& item : node->items) out.push_back(item.text());
  } else {
    for (std::string_view part : split(node->text(), ',')) out.emplace_back(trim(part));
  }
}

}  // namespace

Result<Profile> parseProfile(std::string_view text, std::string_view file) {
  auto stream = parseYaml(text, file);
  if (!stream) return tl::unexpected(stream.error());
  std::string where(file);
  if (stream->documents.empty() || !stream->documents[0].root.isMap())
    return makeError(ErrorCode::kInvalidInput, where + ":1: expected a profile mapping");
  const YamlNode& root = stream->documents[0].root;
  static const char* kKnown[] = {"name", "namespace", "image", "nodes", "gpusPerNode", "fabric", "mode",
                                 "launcher", "resourceName", "controlInterface", "dataInterfaces", "hcas",
                                 "shmSize", "draGpus", "test", "dataPciAddresses"};
  for (size_t i = 0; i < root.entries.size(); ++i) {
    const std::string& key = root.entries[i].first;
    if (std::find_if(std::begin(kKnown), std::end(kKnown), [&](const char* k) { return key == k; }) ==
        std::end(kKnown))
      return makeError(ErrorCode::kInvalidInput,
                       where + ":" + std::to_string(root.key_lines[i]) + ": unknown profile field '" + key + "'");
  }
  Profile profile;
  auto str = [&](const char* key, std::string& out) {
    if (const YamlNode* node = root.get(key)) out = node->text();
  };
  str("name", profile.name);
  str("namespace", profile.ns);
  str("image", profile.image);
  str("fabric", profile.fabric);
  str("mode", profile.mode);
  str("launcher", profile.launcher);
  str("resourceName", profile.resource_name);
  str("controlInterface", profile.control_interface);
  str("shmSize", profile.shm_size);
  if (auto status = readInt(root.get("nodes"), profile.nodes, where, "nodes", 100000); !status) return tl::unexpected(status.error());
  if (auto status = readInt(root.get("gpusPerNode"), profile.gpus_per_node, where, "gpusPerNode", 64); !status)
    return tl::unexpected(status.error());
  readList(root.get("dataInterfaces"), profile.data_interfaces);
  readList(root.get("hcas"), profile.hcas);
  readList(root.get("dataPciAddresses"), profile.data_pci_addresses);
  if (const YamlNode* dra = root.get("draGpus")) profile.dra_gpus = dra->text() == "true";
  if (const YamlNode* test = root.get("test"); test && test->isMap()) {
    auto field = [&](const char* key, std::string& out) {
      if (const YamlNode* node = test->get(key)) out = node->text();
    };
    field("tool", profile.test.tool);
    field("op", profile.test.op);
    field("minBytes", profile.test.min_bytes);
    field("maxBytes", profile.test.max_bytes);
  }
  return profile;
}

Status finishProfile(Profile& profile) {
  auto oneOf = [](const std::string& value, auto& list) {
    return std::find_if(std::begin(list), std::end(list), [&](const char* v) { return value == v; }) != std::end(list);
  };
  if (profile.image.empty())
    return makeError(ErrorCode::kUsage, "profile: image is required (the image with your NCCL stack and railkit)");
  if (profile.name.empty()) profile.name = "rdma-test";
  if (!oneOf(profile.mode, kModes)) return makeError(ErrorCode::kUsage, "profile: unknown mode '" + profile.mode + "'");
  if (!oneOf(profile.launcher, kLaunchers))
    return makeError(ErrorCode::kUsage, "profile: unknown launcher '" + profile.launcher + "'");
  static const char* kFabrics[] = {"infiniband", "roce", "tcpxo"};
  if (!oneOf(profile.fabric, kFabrics))
    return makeError(ErrorCode::kUsage, "profile: fabric must be infiniband, roce or tcpxo");
  if (profile.mode == "gke-tcpxo") profile.fabric = "tcpxo";
  if (profile.fabric == "tcpxo" && profile.mode != "gke-tcpxo")
    return makeError(ErrorCode::kUsage, "profile: fabric tcpxo goes with mode gke-tcpxo");
  if (profile.data_interfaces.empty()) {
    int count = profile.mode == "gke-tcpxo" ? 8 : std::max(1, profile.gpus_per_node);
    std::string base = profile.fabric == "infiniband" ? "ibp" : "ens";
    for (int i = 0; i < count; ++i) profile.data_interfaces.push_back(base + std::to_string(i));
  }
  if (!profile.data_pci_addresses.empty() && profile.data_pci_addresses.size() != profile.data_interfaces.size())
    return makeError(ErrorCode::kUsage, "profile: dataPciAddresses must list one address per data interface (" +
                                            std::to_string(profile.data_interfaces.size()) + ")");
  if (profile.resource_name.empty()) {
    if (profile.mode == "rdma-shared" || profile.mode == "host-network") profile.resource_name = "rdma_shared_a";
    if (profile.mode == "sriov") profile.resource_name = "rdma_vfs";
    if (profile.mode == "host-device") profile.resource_name = "hostdev";
    if (profile.mode == "dra") profile.resource_name = "rdma";
  }
  return okStatus();
}

}  // namespace railkit::k8s::render
