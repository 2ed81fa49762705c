// ucx-net-devices-invalid: UCX_NET_DEVICES pins UCX (OpenMPI's pml ucx,
// UCC, NIXL) to named devices: "mlx5_0:1" for RDMA ports, "eth0" for TCP.
// Names that do not exist in this pod leave UCX without those transports.
#include <cstdlib>

#include "core/strings.h"
#include "doctor/rules/helpers.h"

namespace railkit::doctor {
namespace {

enum class Entry { kUsable, kDown, kMissing };

Entry classify(const model::Inventory& inv, std::string_view entry) {
  auto colon = entry.rfind(':');
  if (colon != std::string_view::npos) {
    auto dev = entry.substr(0, colon);
    auto port = parseUint(entry.substr(colon + 1));
    for (const auto& d : inv.rdma_devices) {
      if (d.name != dev) continue;
      for (const auto& p : d.ports)
        if (port && static_cast<uint64_t>(p.port) == *port)
          return portUsable(p) ? Entry::kUsable : Entry::kDown;
    }
    return Entry::kMissing;
  }
  if (const auto* n = findInterface(inv, std::string(entry)))
    return n->operstate == "up" || n->operstate == "unknown" ? Entry::kUsable : Entry::kDown;
  return Entry::kMissing;
}

std::vector<Finding> check(const DoctorInput& in) {
  const auto& inv = in.inventory;
  auto value = lookup(inv.process.env, "UCX_NET_DEVICES");
  if (!value || inv.interfaces.empty()) return {};
  std::vector<std::string> bad;
  std::vector<Evidence> evidence{envEvidence(inv.process.env, "UCX_NET_DEVICES")};
  int usable = 0;
  for (auto item : split(*value, ',')) {
    item = trim(item);
    // "all", globs and empty items select nothing specific.
    if (item.empty() || item == "all" || item.find_first_of("*?[") != std::string_view::npos) return {};
    Entry e = classify(inv, item);
    if (e == Entry::kUsable) {
      ++usable;
      continue;
    }
    std::string name(item);
    bad.push_back(name + (e == Entry::kDown ? " (down)" : " (absent)"));
    auto colon = name.rfind(':');
    evidence.push_back(
        colon == std::string::npos
            ? Evidence{netPath(name, "operstate"), std::nullopt, e == Entry::kDown ? "down" : "absent"}
            : Evidence{portPath(name.substr(0, colon), std::atoi(name.c_str() + colon + 1), "state"),
                       std::nullopt, e == Entry::kDown ? "not ACTIVE" : "absent"});
  }
  if (bad.empty()) return {};
  return {makeFinding(
      kUcxNetDevicesInvalid, usable == 0 ? Severity::kError : Severity::kWarning, "UCX_NET_DEVICES",
      "UCX_NET_DEVICES \"" + *value + "\" names " + joinNames(bad, 4) +
          (usable == 0 ? "; UCX has no usable network device left" : ""),
      std::move(evidence),
      "name devices this pod has, as `ucx_info -d | grep Device` prints them (mlx5_0:1 for RDMA, "
      "eth0 for TCP), or unset UCX_NET_DEVICES")};
}

}  // namespace

extern const Rule kUcxNetDevicesInvalid = {
    {"ucx-net-devices-invalid", Severity::kError, "UCX_NET_DEVICES names a missing or down device",
     R"(UCX_NET_DEVICES restricts UCX (OpenMPI with pml ucx, UCC, and libraries built on UCX) to the listed
network devices: RDMA ports as <device>:<port> ('mlx5_0:1') and TCP interfaces by name ('eth0').
Names copied from another node or from the host (an SR-IOV pod sees its VF, e.g. mlx5_12) match
nothing in the pod; UCX then drops those transports, falls back to TCP, or fails at MPI_Init with
'no usable transports' / 'UCX ERROR ... no such device'. Error when no listed device is usable.)",
     R"(Fix: list what the pod has and use those names:
  ucx_info -d | grep -e Transport -e Device
  env:
  - name: UCX_NET_DEVICES
    value: mlx5_0:1,mlx5_1:1
or leave it unset (UCX picks every usable device), or 'all'.)"},
    check};

}  // namespace railkit::doctor
