// fabric-no-switch: ibnetdiscover saw no switch at all.
#include "fabric/rules/helpers.h"

namespace railkit::fabric {
namespace {

std::vector<Finding> check(const FabricInput& in) {
  for (const auto& node : in.fabric.nodes)
    if (node.kind == NodeKind::kSwitch) return {};
  // ibnetdiscover starts from the local HCA: alone, it is its only record.
  std::string seen;
  std::vector<Evidence> evidence;
  for (const auto& node : in.fabric.nodes) {
    seen += (seen.empty() ? "\"" : ", \"") + node.description + "\"";
    evidence.push_back(Evidence{in.fabric.source, node.line,
                                fmt::format("{} {} \"{}\" ({} connected ports)", nodeKindName(node.kind),
                                            node.id, node.description, node.ports.size())});
  }
  return {makeFabricFinding(
      kNoSwitch, "fabric",
      fmt::format("ibnetdiscover saw no switch, only {}: the port it ran from has no link to the fabric",
                  seen),
      std::move(evidence),
      "On the node that ran ibnetdiscover, `ibstat`: a port Down or Polling has no cable, a bad cable "
      "or "
      "a switch port that is off; run ibnetdiscover from a node whose port is Active, or with -C/-P to pick "
      "another HCA port.")};
}

}  // namespace

extern const FabricCheck kNoSwitch = {
    {"fabric-no-switch", Severity::kError, "ibnetdiscover saw no switch",
     R"(ibnetdiscover explores the fabric outward from one local HCA port, through the switches. When
that port has no link (Down, Polling: no cable, a bad cable, a switch port that is off) or is not on an
InfiniBand fabric at all, it prints only its own HCA and nothing else, and every check of the fabric
would pass on an empty fabric. `railkit fabric` reports such an output as a finding instead, naming the
HCA it saw.)",
     R"(Fix: check the local port with `ibstat` (State Active, Physical state LinkUp) and its cable, or run
ibnetdiscover from another node, or from another local port (`ibnetdiscover -C mlx5_1 -P 1`).)"},
    check};

}  // namespace railkit::fabric
