// fabric-leaf-uplinks-missing: a leaf with fewer uplinks than its peers.
#include <set>

#include "fabric/rules/helpers.h"

namespace railkit::fabric {
namespace {

struct LeafLinks {
  int hosts = 0;                          // host HCA ports on the leaf
  std::map<std::size_t, int> per_switch;  // upper switch -> cables to it
  std::vector<Evidence> evidence;
  int uplinks() const {
    int n = 0;
    for (const auto& [s, c] : per_switch) n += c;
    return n;
  }
};

LeafLinks linksOf(const Fabric& fabric, std::size_t leaf) {
  LeafLinks out;
  for (const auto& link : fabric.nodes[leaf].ports) {
    if (fabric.nodes[link.peer].kind == NodeKind::kSwitch) {
      ++out.per_switch[link.peer];
      out.evidence.push_back(cableEvidence(fabric, leaf, link));
    } else {
      ++out.hosts;
    }
  }
  return out;
}

// The upper switches this leaf has fewer cables to than most leaves have.
std::string shortTo(const Fabric& fabric, const LeafLinks& mine, const std::map<std::size_t, int>& usual) {
  std::string out;
  for (const auto& [s, n] : usual) {
    auto it = mine.per_switch.find(s);
    int have = it == mine.per_switch.end() ? 0 : it->second;
    if (have < n)
      out += fmt::format("{}{} ({} of {})", out.empty() ? "" : ", ", switchName(fabric.nodes[s]), have, n);
  }
  return out;
}

std::vector<Finding> check(const FabricInput& in) {
  const auto& leaves = in.rails.leaves;
  if (leaves.size() < 2) return {};
  std::vector<LeafLinks> all;
  std::vector<int> counts;
  std::set<std::size_t> uppers;
  for (std::size_t leaf : leaves) {
    all.push_back(linksOf(in.fabric, leaf));
    counts.push_back(all.back().uplinks());
    for (const auto& [s, n] : all.back().per_switch) uppers.insert(s);
  }
  auto [usual, with_usual] = mostCommon(counts);
  if (usual == 0) return {};  // a single-switch tier: nothing above the leaves
  std::map<std::size_t, int> usual_to;
  for (std::size_t s : uppers) {
    std::vector<int> to_s;
    for (const auto& l : all) to_s.push_back(l.per_switch.count(s) ? l.per_switch.at(s) : 0);
    usual_to[s] = mostCommon(to_s).first;
  }
  std::vector<Finding> out;
  for (std::size_t i = 0; i < leaves.size(); ++i) {
    const LeafLinks& l = all[i];
    if (l.uplinks() >= usual) continue;
    std::string name = switchName(in.fabric.nodes[leaves[i]]);
    std::string ratio = l.uplinks() > 0 ? fmt::format(" ({:.1f}:1)", double(l.hosts) / l.uplinks()) : "";
    std::string short_to = shortTo(in.fabric, l, usual_to);
    std::string message =
        fmt::format("{} has {} uplink{} for its {} host ports{}; {} of the {} leaves have {}{}", name,
                    l.uplinks(), l.uplinks() == 1 ? "" : "s", l.hosts, ratio, with_usual, leaves.size(),
                    usual, short_to.empty() ? "" : ". Fewer cables than most leaves to: " + short_to);
    out.push_back(makeFabricFinding(
        kLeafUplinksMissing, name, std::move(message), l.evidence,
        fmt::format("Find the missing uplinks of {} (`ibnetdiscover`, or the switch's `show interfaces "
                    "ib status`): a port Down or Polling is a cable or transceiver to replace; a port never "
                    "cabled is a cabling-plan error. Until then jobs on its hosts share fewer uplinks.",
                    name)));
  }
  return out;
}

}  // namespace

extern const FabricCheck kLeafUplinksMissing = {
    {"fabric-leaf-uplinks-missing", Severity::kWarning, "A leaf switch has fewer uplinks than its peers",
     R"(A leaf's uplinks to the spines carry all traffic between its hosts and the rest of the fabric.
When one leaf has fewer than the others (a cable or transceiver failed, a port went down, a cable was
never plugged), its hosts' traffic is oversubscribed: collectives that leave the leaf slow down for
every job placed there, and adaptive routing cannot hide it. `railkit fabric` counts the cables from
each leaf (a switch with host HCAs) to the switches above it, takes the count most leaves have, and
names each leaf below it, its host ports to uplinks ratio, and the upper switches it has fewer cables
to than most leaves.)",
     R"(Fix: on the named leaf, find the uplink ports that are down or uncabled (the switch's port status,
or `ibnetdiscover` beside the cabling plan), replace the cable or transceiver or plug the missing one,
then check again with `railkit fabric`.)"},
    check};

}  // namespace railkit::fabric
