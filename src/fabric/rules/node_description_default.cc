// ib-node-description-default: HCAs whose node description does not name
// their host.
#include "fabric/rules/helpers.h"

namespace railkit::fabric {
namespace {

constexpr std::size_t kEvidenceShown = 16;

std::vector<Finding> check(const FabricInput& in) {
  const auto& unnamed = in.rails.unnamed;
  if (unnamed.empty()) return {};
  std::vector<Evidence> evidence;
  for (std::size_t c : unnamed) {
    if (evidence.size() == kEvidenceShown) break;
    const Node& ca = in.fabric.nodes[c];
    evidence.push_back(cableEvidence(in.fabric, c, ca.ports.front()));
  }
  const Node& first = in.fabric.nodes[unnamed.front()];
  const PortLink& link = first.ports.front();
  std::string message = fmt::format(
      "{} HCA{} on the fabric {} no \"<host> <device>\" node description (e.g. \"{}\" on {}){}: railkit "
      "cannot "
      "tell their node or rail, so the rail and port-count checks skip them",
      unnamed.size(), unnamed.size() == 1 ? "" : "s", unnamed.size() == 1 ? "has" : "have", first.description,
      switchPort(in.fabric, link.peer, link.peer_port),
      unnamed.size() > kEvidenceShown ? fmt::format(" ({} listed below)", kEvidenceShown) : "");
  return {makeFabricFinding(kNodeDescriptionDefault, "fabric", std::move(message), std::move(evidence),
                            "On each such host, run rdma-ndd (rdma-core's `rdma-ndd` service), which "
                            "writes \"<hostname> <device>\" into /sys/class/infiniband/<device>/node_desc, "
                            "or write it there yourself at boot; until then, name them in a file given with "
                            "--hca-map (one 'HCA-ID HOST DEVICE' line each).")};
}

}  // namespace

extern const FabricCheck kNodeDescriptionDefault = {
    {"ib-node-description-default", Severity::kWarning,
     "HCAs whose node description does not name their host",
     R"(The fabric knows a host only by its HCAs' node descriptions. rdma-core's rdma-ndd sets each to
"<hostname> <device>" ("node017 mlx5_3"); without it an HCA keeps the firmware's default ("MT4129
ConnectX7   Mellanox Technologies"), and the subnet manager, ibnetdiscover, UFM and railkit cannot tell
which node it is in. A fault on that HCA's cable (a wrong leaf, a degraded link) can then not be traced
to a node, and railkit's rail and port-count checks leave it out. `railkit fabric` reports the HCAs
whose description is not "<host> <device>" (SHARP aggregation nodes, which are the switches' own, are
not hosts and are skipped).)",
     R"(Fix: enable rdma-ndd on every host (systemctl enable --now rdma-ndd; it follows hostname changes),
or write the description at boot: echo "$(hostname -s) mlx5_0" > /sys/class/infiniband/mlx5_0/node_desc
Until then, `railkit fabric --hca-map FILE` names them: one line per HCA, its id as ibnetdiscover prints
it (or its GUID), its host and its device, e.g. `H-e09d730300858f00 node017 mlx5_3`.)"},
    check};

}  // namespace railkit::fabric
