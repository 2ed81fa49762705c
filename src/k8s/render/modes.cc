// The exposure modes: each adds the objects it needs and decorates workers.
// Which upstream example each object follows: docs/render.md, "Modes".
#include "k8s/render/modes.h"

namespace railkit::k8s::render {

// More rails than this would run the 192.168.(100+i) and 10.(100+2i) ranges
// past their octet.
constexpr size_t kMaxRails = 64;

std::string joined(const std::vector<std::string>& list, const std::string& separator) {
  std::string out;
  for (const auto& item : list) out += (out.empty() ? "" : separator) + item;
  return out;
}

namespace {

struct ModeEntry {
  const char* mode;
  Result<Objects> (*render)(const Profile&, PodDecoration&);
  bool exclusive_rdma_netns;
  const char* default_resource_name;  // the profile's resourceName when it gives none
};

// Every exposure mode, declared once: the profile's list of modes, its
// default (the first row) and the renderer all come from here.
// exclusive_rdma_netns: the mode hands a pod its own VF, PF or claimed NIC, so
// node-prep sets ib_core's exclusive netns mode. The shared device plugin
// (rdma-shared) refuses to start in it ("incorrect RDMA subsystem network
// namespace", Mellanox/k8s-rdma-shared-dev-plugin#87), hostNetwork pods stay
// in the host's namespace and gke-tcpxo has no RDMA device.
// default_resource_name: what the device plugin or DRA driver of the mode
// advertises by default (sriov and host-device add the rail number); ""
// for gke-tcpxo, whose NICs are not an RDMA resource.
constexpr ModeEntry kModeTable[] = {
    {"rdma-shared", renderNetworkOperatorMode, false, "rdma_shared_a"},
    {"sriov", renderSriovMode, true, "rdma_vfs"},
    {"host-device", renderNetworkOperatorMode, true, "hostdev"},
    {"dra", renderDraMode, true, "rdma"},
    {"gke-tcpxo", renderTcpxoMode, false, ""},
    {"host-network", renderNetworkOperatorMode, false, "rdma_shared_a"},
};

const ModeEntry* modeEntry(const std::string& mode) {
  for (const ModeEntry& entry : kModeTable)
    if (mode == entry.mode) return &entry;
  return nullptr;
}

}  // namespace

const std::vector<const char*>& modeNames() {
  static const std::vector<const char*> names = [] {
    std::vector<const char*> out;
    for (const ModeEntry& entry : kModeTable) out.push_back(entry.mode);
    return out;
  }();
  return names;
}

const char* defaultMode() {
  return kModeTable[0].mode;
}

bool wantsExclusiveRdmaNetns(const std::string& mode) {
  const ModeEntry* entry = modeEntry(mode);
  return entry && entry->exclusive_rdma_netns;
}

const char* defaultResourceName(const std::string& mode) {
  const ModeEntry* entry = modeEntry(mode);
  return entry ? entry->default_resource_name : "";
}

RailSubnet railSubnet(const Profile& profile, size_t rail) {
  constexpr int kBlock = 4;  // a pod, its replacement and room to spare
  if (profile.nodes * kBlock <= 252) return {"192.168." + std::to_string(100 + rail) + ".0/24", kBlock};
  constexpr int kSlash15 = (1 << 17) - 2;
  return {"10." + std::to_string(100 + 2 * rail) + ".0.0/15",
          std::max(1, std::min(kBlock, kSlash15 / profile.nodes))};
}

std::string railName(const Profile& profile, size_t rail) {
  return profile.name + "-rail" + std::to_string(rail);
}

void attachRailNetworks(const Profile& profile, PodDecoration& decoration) {
  std::vector<std::string> selections;
  decoration.pod_data_interfaces.clear();
  for (size_t i = 0; i < profile.data_interfaces.size(); ++i) {
    std::string pod_name = "net" + std::to_string(i + 1);
    selections.push_back(railName(profile, i) + "@" + pod_name);
    decoration.pod_data_interfaces.push_back(pod_name);
  }
  decoration.annotations["k8s.v1.cni.cncf.io/networks"] = joined(selections);
}

void socketEnv(const Profile& profile, PodDecoration& decoration, bool pin_hcas) {
  decoration.env.push_back(envVar("NCCL_SOCKET_IFNAME", profile.control_interface));
  if (pin_hcas && !profile.hcas.empty())
    decoration.env.push_back(envVar("NCCL_IB_HCA", std::string("=").append(joined(profile.hcas))));
  if (profile.fabric == "roce") decoration.env.push_back(envVar("NCCL_IB_GID_INDEX", "3"));
}

Result<std::vector<RenderedObject>> renderMode(const Profile& profile, PodDecoration& decoration) {
  if (profile.data_interfaces.size() > kMaxRails)
    return makeError(ErrorCode::kUsage, "profile: at most " + std::to_string(kMaxRails) +
                                            " data interfaces, found " +
                                            std::to_string(profile.data_interfaces.size()));
  if (profile.cni == "spiderpool") return renderSpiderpoolMode(profile, decoration);
  if (const ModeEntry* entry = modeEntry(profile.mode)) return entry->render(profile, decoration);
  return makeError(ErrorCode::kUsage, "profile: unknown mode '" + profile.mode + "'");
}

}  // namespace railkit::k8s::render
