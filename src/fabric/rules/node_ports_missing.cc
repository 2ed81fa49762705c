// fabric-node-ports-missing: a node with fewer HCA ports on the fabric
// than its peers.
#include <algorithm>

#include "fabric/rules/helpers.h"

namespace railkit::fabric {
namespace {

std::vector<Finding> check(const FabricInput& in) {
  const RailView& view = in.rails;
  std::vector<int> counts;
  for (const auto& [host, ports] : view.hosts) counts.push_back(static_cast<int>(ports.size()));
  if (counts.size() < 2) return {};
  auto [usual, with_usual] = mostCommon(counts);
  std::vector<Finding> out;
  for (const auto& [host, ports] : view.hosts) {
    if (static_cast<int>(ports.size()) >= usual) continue;
    std::vector<bool> present(view.rails(), false);
    std::vector<Evidence> evidence;
    for (std::size_t i : ports) {
      const HcaPort& h = view.hca_ports[i];
      present[h.rail] = true;
      evidence.push_back(cableEvidence(in.fabric, h.ca, *h.link));
    }
    std::string missing;
    int n_missing = 0;
    for (int r = 0; r < view.rails(); ++r) {
      if (present[r]) continue;
      missing += fmt::format("{}rail {} ({})", missing.empty() ? "" : ", ", r, view.railDevice(r));
      ++n_missing;
    }
    std::string message =
        fmt::format("{} has {} HCA port{} on the fabric; {} of the {} nodes have {}. Missing: {}", host,
                    ports.size(), ports.size() == 1 ? "" : "s", with_usual, counts.size(), usual,
                    missing.empty() ? "a second port of a rail" : missing);
    if (!view.unnamed.empty())
      message +=
          fmt::format(" ({} HCA{} on the fabric carry no node description; see ib-node-description-default)",
                      view.unnamed.size(), view.unnamed.size() == 1 ? "" : "s");
    out.push_back(makeFabricFinding(
        kNodePortsMissing, host, std::move(message), std::move(evidence),
        fmt::format(
            "On {}, look at the missing port{}: `ibstat {}` (State/Physical state: Down or "
            "Polling means no link), then its cable and the leaf port; an HCA that is absent from "
            "`ibstat` altogether is a driver, firmware or PCIe problem (`railkit doctor` on the node).",
            host, n_missing == 1 ? "" : "s",
            n_missing == 1
                ? view.railDevice(std::find(present.begin(), present.end(), false) - present.begin())
                : "<device>")));
  }
  return out;
}

}  // namespace

extern const FabricCheck kNodePortsMissing = {
    {"fabric-node-ports-missing", Severity::kError, "A node has fewer HCA ports on the fabric than its peers",
     R"(Every node of a rail-optimized cluster has one HCA port on each rail. A port that is down, polling
or disabled, a cable that is unplugged, or an HCA the host lost does not appear in the fabric at all,
and NCCL runs that node with one rail fewer: every collective of every job on it slows to that node's
pace. `railkit fabric` counts each node's HCA ports in ibnetdiscover's output (nodes are known by the
"<host> <device>" node description of their HCAs), takes the count most nodes have, and names each node
below it with the rails (and devices) it lacks. An HCA whose node description is still the firmware
default cannot be counted for its node (see ib-node-description-default).)",
     R"(Fix: on the named node, `ibstat <device>` for the missing rail: Down/Polling is the cable, the
transceiver or the leaf port (reseat, replace, check the switch port); a device missing from ibstat is
the driver, firmware or PCIe (`railkit doctor` on the node, `dmesg | grep mlx5`).)"},
    check};

}  // namespace railkit::fabric
