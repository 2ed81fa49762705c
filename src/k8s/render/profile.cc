#include "k8s/render/profile.h"

#include <algorithm>

#include "core/strings.h"
#include "k8s/render/lldp.h"
#include "k8s/render/subnet_plan.h"
#include "k8s/render/values.h"
#include "k8s/yaml.h"

namespace railkit::k8s::render {
namespace {

Status readInt(const YamlNode* node, int& out, const std::string& where, const char* key, uint64_t max,
               uint64_t min = 1) {
  if (node == nullptr) return okStatus();
  auto value = parseUint(node->text());
  if (!value || *value < min || *value > max)
    return makeError(ErrorCode::kInvalidInput, where + ":" + std::to_string(node->line) + ": " + key +
                                                   " expects a whole number from " + std::to_string(min) +
                                                   " to " + std::to_string(max) + ", found '" + node->value +
                                                   "'");
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

// What each test tool can run: nccl-tests' binaries (op + "_perf"),
// railkit bench's ops, perftest's bandwidth and latency tools.
constexpr const char* kNcclTestsOps[] = {"all_reduce",     "all_gather", "broadcast", "reduce",
                                         "reduce_scatter", "alltoall",   "scatter",   "gather",
                                         "sendrecv",       "hypercube"};
constexpr const char* kRailkitOps[] = {"all_reduce", "all_gather", "reduce_scatter", "broadcast",
                                       "reduce",     "alltoall",   "sendrecv",       "p2p",
                                       "pairs",      "all"};
constexpr const char* kPerftestOps[] = {"ib_write_bw",  "ib_read_bw",  "ib_send_bw",  "ib_atomic_bw",
                                        "ib_write_lat", "ib_read_lat", "ib_send_lat", "ib_atomic_lat"};
// railkit validate's phase 4 runs the collectives (no p2p, pairs or all:
// phase 3 is its pairs).
constexpr const char* kValidateOps[] = {"all_reduce", "all_gather", "reduce_scatter",
                                        "broadcast",  "reduce",     "alltoall"};
constexpr const char* kBackends[] = {"nccl", "tcp", "ucx"};

template <size_t N>
bool listed(const std::string& value, const char* const (&list)[N]) {
  return std::find_if(std::begin(list), std::end(list), [&](const char* v) { return value == v; }) !=
         std::end(list);
}

template <size_t N>
std::string listText(const char* const (&list)[N]) {
  std::string out;
  for (const char* item : list) {
    if (!out.empty()) out.push_back(' ');
    out.append(item);
  }
  return out;
}

// Values that land in the rendered shell scripts: names only, so a profile
// cannot smuggle shell syntax into the pods' commands.
bool safeWord(const std::string& value) {
  return !value.empty() && value.size() <= 63 && std::all_of(value.begin(), value.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_' || c == '.';
  });
}

Status finishTest(const Profile& profile, TestSpec& test) {
  if (test.tool == "nccl-tests" || test.tool == "railkit") {
    if (test.op.empty()) test.op = "all_reduce";
  } else if (test.tool == "perftest") {
    if (test.op.empty()) test.op = "ib_write_bw";
  } else if (test.tool != "validate") {
    return makeError(ErrorCode::kUsage, "profile: test.tool '" + test.tool +
                                            "': expected nccl-tests, railkit, perftest or validate");
  }
  if (!test.slow_fraction.empty()) {
    auto fraction = parseDouble(test.slow_fraction);
    if (test.tool != "validate")
      return makeError(ErrorCode::kUsage,
                       "profile: test.slowFraction goes with test.tool validate (its pairs phase)");
    if (!fraction || !(*fraction > 0 && *fraction < 1))
      return makeError(ErrorCode::kUsage, "profile: test.slowFraction '" + test.slow_fraction.substr(0, 40) +
                                              "': expected a fraction between 0 and 1");
    test.slow_fraction = std::to_string(*fraction);
    test.slow_fraction.erase(test.slow_fraction.find_last_not_of('0') + 1);
  }
  if (test.tool == "validate") {
    // Empty: validate's own default. Otherwise every entry a collective, no
    // spaces (the list lands in the pod's command line as one word).
    std::vector<std::string_view> ops;
    if (!test.op.empty()) ops = split(test.op, ',');
    for (std::string_view op : ops)
      if (!listed(std::string(op), kValidateOps))
        return makeError(ErrorCode::kUsage, "profile: test.op '" + test.op +
                                                "': validate runs a comma-separated list of collectives (" +
                                                listText(kValidateOps) + ")");
  } else {
    if (test.min_bytes.empty()) test.min_bytes = "8";
    if (test.max_bytes.empty()) test.max_bytes = "8G";
  }
  // gpusPerNode 0 says a node has no GPU: validate checks that; every other
  // test runs one rank per GPU.
  if (profile.gpus_per_node == 0 && test.tool != "validate")
    return makeError(ErrorCode::kUsage, "profile: gpusPerNode 0 goes with test.tool validate only (" +
                                            test.tool + " runs one rank per GPU)");
  if (test.tool == "nccl-tests" && !listed(test.op, kNcclTestsOps))
    return makeError(ErrorCode::kUsage, "profile: test.op '" + test.op + "' is not an nccl-tests binary (" +
                                            listText(kNcclTestsOps) + ")");
  if (test.tool == "railkit" && !listed(test.op, kRailkitOps))
    return makeError(ErrorCode::kUsage, "profile: test.op '" + test.op + "' is not a railkit bench op (" +
                                            listText(kRailkitOps) + ")");
  if (test.tool == "perftest" && !listed(test.op, kPerftestOps))
    return makeError(ErrorCode::kUsage, "profile: test.op '" + test.op + "' is not a perftest tool (" +
                                            listText(kPerftestOps) + ")");
  if (!listed(test.backend, kBackends))
    return makeError(ErrorCode::kUsage,
                     "profile: test.backend '" + test.backend + "': expected nccl, tcp or ucx");
  if (test.tool != "railkit" && test.tool != "validate" && test.backend != "nccl")
    return makeError(ErrorCode::kUsage,
                     "profile: test.backend goes with test.tool railkit or validate (their --backend)");
  // perftest is one server and one client: a pair of nodes, no more.
  if (test.tool == "perftest" && profile.nodes != 2)
    return makeError(ErrorCode::kUsage,
                     "profile: test.tool perftest runs between 2 nodes (a server and a client), "
                     "found nodes: " +
                         std::to_string(profile.nodes));
  for (const std::string* size : {&test.min_bytes, &test.max_bytes}) {
    if (size->empty() && test.tool == "validate") continue;  // validate's own default
    bool plain = !size->empty() && std::all_of(size->begin(), size->end(), [](char c) {
      return (c >= '0' && c <= '9') || c == 'K' || c == 'M' || c == 'G' || c == 'T' || c == 'k' || c == 'm' ||
             c == 'g';
    });
    if (!plain)
      return makeError(ErrorCode::kUsage,
                       "profile: test sizes must look like 8, 1M or 8G, found '" + *size + "'");
  }
  return okStatus();
}

}  // namespace

Result<Profile> parseProfile(std::string_view text, std::string_view file) {
  auto stream = parseYaml(text, file);
  if (!stream) return tl::unexpected(stream.error());
  std::string where(file);
  if (stream->documents.empty() || !stream->documents[0].root.isMap())
    return makeError(ErrorCode::kInvalidInput, where + ":1: expected a profile mapping");
  const YamlNode& root = stream->documents[0].root;
  static const char* kKnown[] = {"name",           "namespace",
                                 "image",          "nodes",
                                 "gpusPerNode",    "fabric",
                                 "mode",           "launcher",
                                 "resourceName",   "controlInterface",
                                 "dataInterfaces", "hcas",
                                 "shmSize",        "draGpus",
                                 "test",           "dataPciAddresses",
                                 "railkitImage",   "cni",
                                 "subnetPlan",     "railRanges",
                                 "nodeBlockSize",  "nodeNames",
                                 "podsPerNode",    "lldp",
                                 "lldpImage"};
  for (size_t i = 0; i < root.entries.size(); ++i) {
    const std::string& key = root.entries[i].first;
    if (std::find_if(std::begin(kKnown), std::end(kKnown), [&](const char* k) { return key == k; }) ==
        std::end(kKnown))
      return makeError(ErrorCode::kInvalidInput, where + ":" + std::to_string(root.key_lines[i]) +
                                                     ": unknown profile field '" + key + "'");
  }
  Profile profile;
  auto str = [&](const char* key, std::string& out) {
    if (const YamlNode* node = root.get(key)) out = node->text();
  };
  str("name", profile.name);
  str("namespace", profile.ns);
  str("image", profile.image);
  str("railkitImage", profile.railkit_image);
  str("fabric", profile.fabric);
  str("mode", profile.mode);
  str("launcher", profile.launcher);
  str("resourceName", profile.resource_name);
  str("controlInterface", profile.control_interface);
  str("shmSize", profile.shm_size);
  str("cni", profile.cni);
  str("lldp", profile.lldp);
  str("lldpImage", profile.lldp_image);
  str("subnetPlan", profile.subnets.plan);
  readList(root.get("railRanges"), profile.subnets.rail_ranges);
  readList(root.get("nodeNames"), profile.subnets.node_names);
  if (auto status = readInt(root.get("nodeBlockSize"), profile.subnets.node_block_size, where,
                            "nodeBlockSize", 1 << 24);
      !status)
    return tl::unexpected(status.error());
  if (auto status =
          readInt(root.get("podsPerNode"), profile.subnets.pods_per_node, where, "podsPerNode", 256);
      !status)
    return tl::unexpected(status.error());
  if (auto status = readInt(root.get("nodes"), profile.nodes, where, "nodes", 100000); !status)
    return tl::unexpected(status.error());
  if (auto status = readInt(root.get("gpusPerNode"), profile.gpus_per_node, where, "gpusPerNode", 64, 0);
      !status)
    return tl::unexpected(status.error());
  readList(root.get("dataInterfaces"), profile.data_interfaces);
  readList(root.get("hcas"), profile.hcas);
  readList(root.get("dataPciAddresses"), profile.data_pci_addresses);
  if (const YamlNode* dra = root.get("draGpus")) profile.dra_gpus = dra->text() == "true";
  // `test: validate` (a bare tool name) is short for `test: {tool: validate}`.
  if (const YamlNode* test = root.get("test"); test && test->isScalar()) profile.test.tool = test->text();
  if (const YamlNode* test = root.get("test"); test && test->isMap()) {
    auto field = [&](const char* key, std::string& out) {
      if (const YamlNode* node = test->get(key)) out = node->text();
    };
    field("tool", profile.test.tool);
    field("op", profile.test.op);
    field("backend", profile.test.backend);
    field("minBytes", profile.test.min_bytes);
    field("maxBytes", profile.test.max_bytes);
    field("slowFraction", profile.test.slow_fraction);
  }
  return profile;
}

Status checkProfileValues(const Profile& profile) {
  struct One {
    const char* field;
    const std::string& value;
    ValueShape shape;
  };
  const One ones[] = {
      {"profile: image", profile.image, ValueShape::kImageReference},
      {"profile: railkitImage (--railkit-image)", profile.railkit_image, ValueShape::kImageReference},
      {"profile: lldpImage", profile.lldp_image, ValueShape::kImageReference},
      {"profile: lldp", profile.lldp, ValueShape::kWord},
      {"profile: resourceName", profile.resource_name, ValueShape::kResourceName},
      {"profile: shmSize", profile.shm_size, ValueShape::kQuantity},
      {"profile: fabric", profile.fabric, ValueShape::kWord},
      {"profile: mode", profile.mode, ValueShape::kWord},
      {"profile: launcher", profile.launcher, ValueShape::kWord},
      {"profile: cni", profile.cni, ValueShape::kWord},
      {"profile: controlInterface", profile.control_interface, ValueShape::kWord},
      {"profile: subnetPlan", profile.subnets.plan, ValueShape::kWord},
      {"profile: test.tool", profile.test.tool, ValueShape::kWord},
      {"profile: test.op", profile.test.op, ValueShape::kWordList},
      {"profile: test.backend", profile.test.backend, ValueShape::kWord},
      {"profile: test.minBytes", profile.test.min_bytes, ValueShape::kWord},
      {"profile: test.maxBytes", profile.test.max_bytes, ValueShape::kWord},
      {"profile: test.slowFraction", profile.test.slow_fraction, ValueShape::kWord},
  };
  // An empty value is a missing one: whether it is required is finishProfile's.
  for (const One& one : ones)
    if (!one.value.empty())
      if (auto status = checkValue(one.field, one.value, one.shape); !status) return status;
  const std::pair<const char*, std::pair<const std::vector<std::string>*, ValueShape>> lists[] = {
      {"profile: hcas", {&profile.hcas, ValueShape::kHcaEntry}},
      {"profile: dataInterfaces", {&profile.data_interfaces, ValueShape::kWord}},
      {"profile: dataPciAddresses", {&profile.data_pci_addresses, ValueShape::kPciAddress}},
      {"profile: railRanges", {&profile.subnets.rail_ranges, ValueShape::kCidr}},
      {"profile: nodeNames", {&profile.subnets.node_names, ValueShape::kDnsSubdomain}},
  };
  for (const auto& [field, list] : lists)
    if (auto status = checkValues(field, *list.first, list.second); !status) return status;
  return okStatus();
}

Status finishProfile(Profile& profile) {
  if (auto status = checkProfileValues(profile); !status) return status;
  auto oneOf = [](const std::string& value, auto& list) {
    return std::find_if(std::begin(list), std::end(list), [&](const char* v) { return value == v; }) !=
           std::end(list);
  };
  if (profile.image.empty())
    return makeError(ErrorCode::kUsage,
                     "profile: image is required (the image with your NCCL stack and railkit)");
  if (profile.name.empty()) profile.name = "rdma-test";
  if (!oneOf(profile.mode, modeNames())) {
    std::string known;
    for (const char* mode : modeNames()) known += (known.empty() ? "" : ", ") + std::string(mode);
    return makeError(ErrorCode::kUsage,
                     "profile: unknown mode '" + profile.mode + "' (expected one of " + known + ")");
  }
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
  if (auto status = finishTest(profile, profile.test); !status) return status;
  if (auto status = checkLldp(profile); !status) return status;
  if (!safeWord(profile.name) || !safeWord(profile.ns))
    return makeError(ErrorCode::kUsage,
                     "profile: name and namespace must be DNS labels (letters, digits, '-')");
  for (const std::string& name : profile.data_interfaces)
    if (!safeWord(name))
      return makeError(ErrorCode::kUsage, "profile: data interface '" + name + "' is not an interface name");
  if (!safeWord(profile.control_interface))
    return makeError(ErrorCode::kUsage, "profile: control interface '" + profile.control_interface +
                                            "' is not an interface name");
  if (!profile.data_pci_addresses.empty() &&
      profile.data_pci_addresses.size() != profile.data_interfaces.size())
    return makeError(ErrorCode::kUsage,
                     "profile: dataPciAddresses must list one address per data interface (" +
                         std::to_string(profile.data_interfaces.size()) + ")");
  if (profile.resource_name.empty()) profile.resource_name = defaultResourceName(profile.mode);
  return finishSubnetPlan(profile);
}

}  // namespace railkit::k8s::render
