// roce-gid-netns: RoCE addresses a peer through a GID, and each GID belongs
// to a netdev (gid_attrs/ndevs). A GID whose netdev is not in this network
// namespace cannot route: NCCL or rdma_cm picking it fail to connect.
#include <algorithm>

#include "core/strings.h"
#include "doctor/rules/helpers.h"

namespace railkit::doctor {
namespace {

std::vector<Finding> check(const DoctorInput& in) {
  const auto& inv = in.inventory;
  // Without any interface listing (partial snapshot) presence cannot be judged.
  if (inv.interfaces.empty()) return {};
  // The GID NCCL is told to use, when it is pinned.
  std::optional<uint64_t> pinned;
  if (auto v = lookup(inv.process.env, "NCCL_IB_GID_INDEX")) pinned = parseUint(trim(*v));
  std::vector<Finding> out;
  for (const auto& d : inv.rdma_devices) {
    for (const auto& p : d.ports) {
      if (p.link_layer != "Ethernet") continue;
      std::vector<Evidence> evidence;
      std::vector<std::string> missing;
      int present = 0;
      bool pinned_missing = false;
      for (const auto& g : p.gids) {
        if (g.netdev.empty()) continue;
        if (findInterface(inv, g.netdev)) {
          ++present;
          continue;
        }
        evidence.push_back({portPath(d.name, p.port, "gid_attrs/ndevs/" + std::to_string(g.index)),
                            std::nullopt, g.netdev + " (GID " + std::to_string(g.index) + " " + g.gid + ")"});
        pinned_missing = pinned_missing || (pinned && *pinned == static_cast<uint64_t>(g.index));
        if (std::find(missing.begin(), missing.end(), g.netdev) == missing.end()) missing.push_back(g.netdev);
      }
      if (missing.empty()) continue;
      std::string subject = d.name + ":" + std::to_string(p.port);
      evidence.push_back({sys::paths::kClassNet, std::nullopt, "no " + joinNames(missing)});
      // Other namespaces' GIDs are expected in shared mode (macvlan); they
      // matter when nothing else is left or NCCL is pinned to one of them.
      bool broken = present == 0 || pinned_missing;
      if (broken) evidence.push_back(envEvidence(inv.process.env, "NCCL_IB_GID_INDEX"));
      out.push_back(makeFinding(kRoceGidNetns, broken ? Severity::kError : Severity::kInfo, subject,
                                "RoCE port " + subject + " has GID(s) on netdev " + joinNames(missing) +
                                    ", which is not in this network namespace" +
                                    (present == 0     ? "; no GID of the port is usable here"
                                     : pinned_missing ? "; NCCL_IB_GID_INDEX selects one of them"
                                                      : ""),
                                std::move(evidence),
                                "attach the RoCE interface to the pod (SR-IOV VF or macvlan/ipvlan on " +
                                    joinNames(missing) +
                                    ") and point NCCL_IB_GID_INDEX at a GID of a netdev the pod has"));
    }
  }
  return out;
}

}  // namespace

extern const Rule kRoceGidNetns = {
    {"roce-gid-netns", Severity::kError, "A RoCE GID's netdev is not in this network namespace",
     R"(On RoCE every GID table entry is bound to a network interface (gid_attrs/ndevs) and carries that
interface's MAC/IP. Connections are set up through the netdev's routes and neighbours, so a GID whose
netdev lives in another network namespace (the host's, another pod's) cannot reach anyone from here:
NCCL reports 'NET/IB : ... failed' or hangs at connect, rdma_cm returns ENODEV/ETIMEDOUT. This happens
with hostNetwork-free pods that see the host's RDMA device (shared mode) but not its netdev.
Severity: error when no GID of the port belongs to a netdev of this namespace, or NCCL_IB_GID_INDEX
selects one that does not; info otherwise (in shared mode a pod also sees the host's and other pods'
GIDs, which is expected).)",
     R"(Fix: give the pod a netdev on the RoCE port and use the GID that belongs to it:
  metadata:
    annotations:
      k8s.v1.cni.cncf.io/networks: roce-macvlan   # or an SR-IOV VF network
  # inside the pod: which GIDs belong to which interface
  show_gids        # or: cat /sys/class/infiniband/<dev>/ports/1/gid_attrs/ndevs/*
  export NCCL_IB_GID_INDEX=<index of the RoCE v2 GID on net1>
With SR-IOV, set the RDMA subsystem to exclusive netns mode so the VF's GIDs move with its netdev.)"},
    check};

}  // namespace railkit::doctor
