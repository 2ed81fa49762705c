#include "k8s/lint/dra_claims.h"

#include <algorithm>
#include <regex>

#include "core/strings.h"

namespace railkit::k8s {
namespace {

struct Gives {
  bool nic = false, rdma = false, gpu = false, imex = false;
  bool plain_nic = false;  // a NIC the class says is not RDMA
  bool any() const { return nic || rdma || gpu || imex; }
  void add(const Gives& other) {
    plain_nic = plain_nic || other.plain_nic;
    nic = nic || other.nic;
    rdma = rdma || other.rdma;
    gpu = gpu || other.gpu;
    imex = imex || other.imex;
  }
};

struct Known {
  const char* name;
  Gives gives;
};

// Drivers as DeviceClass and request selectors name them (`device.driver ==
// "dra.net"`, `device.attributes["dra.net"]`). dranet moves a netdev into the
// pod; whether it is an RDMA NIC is said by its rdma attributes (below).
constexpr Known kDrivers[] = {
    {"dra.net", {true, false, false, false}},
    {"gpu.nvidia.com", {false, false, true, false}},
    {"compute-domain.nvidia.com", {false, false, false, true}},
};

// Classes a driver or platform installs, so manifests name them without a
// DeviceClass of their own: GKE managed DRANET (mrdma: RDMA NICs, netdev:
// other NICs), NVIDIA's DRA driver for GPUs (GPUs, MIG, ComputeDomain
// channels and daemons; imex.nvidia.com in its first releases), AWS EFA and
// the SR-IOV DRA driver.
constexpr Known kClasses[] = {
    {"mrdma.google.com", {true, true, false, false}},
    {"netdev.google.com", {true, false, false, false, true}},
    {"gpu.nvidia.com", {false, false, true, false}},
    {"mig.nvidia.com", {false, false, true, false}},
    {"compute-domain-default-channel.nvidia.com", {false, false, false, true}},
    {"compute-domain-daemon.nvidia.com", {false, false, false, true}},
    {"imex.nvidia.com", {false, false, false, true}},
    {"efa.networking.k8s.aws", {false, true, false, false}},
    // The SR-IOV DRA driver (k8snetworkplumbingwg/dra-driver-sriov): a VF's
    // netdev; whether it comes with its RDMA device is the VF's config, not
    // the class's, so the class alone says NIC and no more.
    {"sriovnetwork.k8snetworkplumbingwg.io", {true, false, false, false}},
};

Gives fromCel(const std::string& cel) {
  static const std::regex kRdma(R"re((\.rdma\b|\[\s*["']rdma["']\s*\]|rdmaDevice)(?!\s*==\s*false))re");
  Gives gives;
  for (const Known& driver : kDrivers) {
    std::string name = driver.name;
    if (cel.find('"' + name + '"') != std::string::npos || cel.find('\'' + name + '\'') != std::string::npos)
      gives.add(driver.gives);
  }
  if (gives.nic && std::regex_search(cel, kRdma)) gives.rdma = true;
  return gives;
}

// The CEL expressions of a `selectors` list, joined.
std::string selectorsText(const YamlNode* selectors) {
  std::string out;
  if (selectors == nullptr || !selectors->isSeq()) return out;
  for (const YamlNode& selector : selectors->items)
    if (const YamlNode* expression = selector.at({"cel", "expression"})) out += expression->text() + "\n";
  return out;
}

// dranet keeps a NIC's host name unless its config renames it; a selector
// pinning `ifName == "x"` therefore says the name in the pod.
std::string pinnedIfName(const std::string& cel) {
  static const std::regex kIfName(R"re(ifName["']?\]?\s*==\s*["']([^"']+)["'])re");
  std::smatch match;
  return std::regex_search(cel, match, kIfName) ? match.str(1) : "";
}

// The `interface.name` a dra.net opaque config gives `request`, or "".
std::string configuredIfName(const YamlNode* config, const std::string& request) {
  if (config == nullptr || !config->isSeq()) return "";
  for (const YamlNode& entry : config->items) {
    const YamlNode* driver = entry.at({"opaque", "driver"});
    const YamlNode* name = entry.at({"opaque", "parameters", "interface", "name"});
    if (driver == nullptr || driver->text() != "dra.net" || name == nullptr) continue;
    const YamlNode* requests = entry.get("requests");
    bool applies = requests == nullptr || !requests->isSeq();  // no list: every request
    if (!applies)
      for (const YamlNode& item : requests->items) applies = applies || item.text() == request;
    if (applies) return name->text();
  }
  return "";
}

struct Context {
  std::map<std::string, std::string> class_cel;  // DeviceClass name -> its selectors
};

// One device request body (v1 `exactly` or a `firstAvailable` entry, or a
// v1beta1 request itself) added to `out`.
void addRequest(const Context& context, const YamlNode& body, const std::string& request, bool alternative,
                const YamlNode* config, DraDevices& out) {
  std::string device_class = body.get("deviceClassName") ? body.get("deviceClassName")->text() : "";
  std::string cel = selectorsText(body.get("selectors"));
  Gives gives;
  for (const Known& known : kClasses)
    if (device_class == known.name) gives.add(known.gives);
  if (auto it = context.class_cel.find(device_class); it != context.class_cel.end())
    gives.add(fromCel(it->second));
  gives.add(fromCel(cel));
  if (!gives.any()) {
    out.unknown_classes.push_back(device_class.empty() ? "(none)" : device_class);
    out.interfaces_known = false;  // it may be a NIC after all
    return;
  }
  const YamlNode* mode = body.get("allocationMode");
  bool all = mode != nullptr && mode->text() == "All";
  long count = 1;
  if (const YamlNode* count_node = body.get("count"))
    count = static_cast<long>(parseUint(trim(count_node->text())).value_or(1));
  out.nic = out.nic || gives.nic;
  out.rdma = out.rdma || gives.rdma;
  out.nic_maybe_rdma = out.nic_maybe_rdma || (gives.nic && !gives.rdma && !gives.plain_nic);
  out.imex = out.imex || gives.imex;
  if (gives.gpu) out.gpus += count;
  if (!gives.nic) return;
  std::string ifname = configuredIfName(config, request);
  if (ifname.empty()) ifname = pinnedIfName(cel);
  // Several NICs, or a choice among alternatives, cannot all get one name.
  if (ifname.empty() || all || count != 1 || alternative)
    out.interfaces_known = false;
  else
    out.interfaces.push_back(ifname);
}

DraDevices readDevices(const Context& context, const YamlNode* devices) {
  DraDevices out;
  if (devices == nullptr) return out;
  const YamlNode* requests = devices->get("requests");
  const YamlNode* config = devices->get("config");
  if (requests == nullptr || !requests->isSeq()) return out;
  for (const YamlNode& request : requests->items) {
    std::string name = request.get("name") ? request.get("name")->text() : "";
    if (const YamlNode* exactly = request.get("exactly")) {
      addRequest(context, *exactly, name, false, config, out);
    } else if (const YamlNode* first = request.get("firstAvailable"); first && first->isSeq()) {
      for (const YamlNode& sub : first->items) addRequest(context, sub, name, true, config, out);
    } else {
      addRequest(context, request, name, false, config, out);  // v1beta1: fields on the request
    }
  }
  return out;
}

}  // namespace

void DraDevices::merge(const DraDevices& other) {
  nic = nic || other.nic;
  rdma = rdma || other.rdma;
  nic_maybe_rdma = nic_maybe_rdma || other.nic_maybe_rdma;
  imex = imex || other.imex;
  gpus += other.gpus;
  unknown_classes.insert(unknown_classes.end(), other.unknown_classes.begin(), other.unknown_classes.end());
  interfaces.insert(interfaces.end(), other.interfaces.begin(), other.interfaces.end());
  interfaces_known = interfaces_known && other.interfaces_known;
}

DraCatalog buildDraCatalog(const std::vector<std::unique_ptr<Manifest>>& manifests) {
  Context context;
  for (const auto& manifest : manifests)
    for (const Object& object : manifest->objects)
      if (object.kind == "DeviceClass")
        context.class_cel[object.name] = selectorsText(object.root->at({"spec", "selectors"}));
  DraCatalog catalog;
  for (const auto& manifest : manifests)
    for (const Object& object : manifest->objects) {
      const YamlNode& root = *object.root;
      if (object.kind == "ResourceClaimTemplate") {
        catalog.templates[object.name] = readDevices(context, root.at({"spec", "spec", "devices"}));
      } else if (object.kind == "ResourceClaim") {
        catalog.claims[object.name] = readDevices(context, root.at({"spec", "devices"}));
      } else if (object.kind == "ComputeDomain") {
        // The driver creates the channel's ResourceClaimTemplate under this name.
        if (const YamlNode* name = root.at({"spec", "channel", "resourceClaimTemplate", "name"})) {
          DraDevices channel;
          channel.imex = true;
          catalog.templates[name->text()] = channel;
        }
      }
    }
  return catalog;
}

std::string knownDeviceClassesText() {
  std::string out = "classes whose selectors name the driver dra.net (dranet)";
  for (const Known& known : kClasses) out += std::string(", ") + known.name;
  return out;
}

}  // namespace railkit::k8s
