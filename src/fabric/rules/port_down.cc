// fabric-port-down: a switch port Down where the same port of its peers is
// Active.
#include <map>
#include <set>

#include "fabric/rules/helpers.h"

namespace railkit::fabric {
namespace {

using PortStates = std::map<int, const SwitchPortState*>;

// What port `port` of the switches `others` is cabled to, most often: a host
// ("node002") or a switch ("spine1").
std::string usualPeer(const FabricInput& in, const std::vector<std::size_t>& others, int port) {
  std::vector<std::string> names;
  for (std::size_t o : others)
    for (const auto& link : in.fabric.nodes[o].ports) {
      if (link.port != port) continue;
      const Node& peer = in.fabric.nodes[link.peer];
      std::string host, device;
      if (peer.kind == NodeKind::kSwitch)
        names.push_back(switchName(peer));
      else if (splitHcaDescription(peer.description, host, device))
        names.push_back(host);
    }
  return names.empty() ? "" : mostCommon(names).first;
}

void checkTier(const FabricInput& in, const std::vector<std::size_t>& tier, const char* what,
               const std::map<std::size_t, PortStates>& states, std::vector<Finding>& out) {
  for (std::size_t s : tier) {
    auto mine = states.find(s);
    if (mine == states.end()) continue;
    for (const auto& [port, st] : mine->second) {
      if (st->state != "Down") continue;
      std::vector<std::size_t> others;
      int active = 0;
      for (std::size_t o : tier) {
        auto theirs = states.find(o);
        if (o == s || theirs == states.end()) continue;
        others.push_back(o);
        auto it = theirs->second.find(port);
        active += it != theirs->second.end() && it->second->state == "Active";
      }
      if (others.empty() || active * 2 <= static_cast<int>(others.size())) continue;
      std::string at = switchPort(in.fabric, s, port);
      std::string peer = usualPeer(in, others, port);
      out.push_back(makeFabricFinding(
          kPortDown, at,
          fmt::format("{} is {} ({}); port {} is Active on {} of the other {} {}{}", at, st->state, st->phys,
                      port, active, others.size(), what,
                      peer.empty() ? "" : ", where it is cabled to " + peer),
          {Evidence{in.links->source, st->line,
                    fmt::format("{} port {}: {}/ {}", st->description, port, st->state, st->phys)}},
          fmt::format(
              "Check the cable and transceivers of {}{}; Polling is no light or a bad cable, Disabled a "
              "port turned off (ibportstate <lid> {} enable).",
              at, peer.empty() ? "" : " and their other end on " + peer, port)));
    }
  }
}

std::vector<Finding> check(const FabricInput& in) {
  if (in.links == nullptr) return {};
  std::map<std::string, std::size_t> by_guid;
  for (std::size_t n = 0; n < in.fabric.nodes.size(); ++n)
    if (in.fabric.nodes[n].kind == NodeKind::kSwitch) by_guid[normaliseGuid(in.fabric.nodes[n].id)] = n;
  std::map<std::size_t, PortStates> states;
  for (const auto& st : in.links->ports) {
    auto it = by_guid.find(st.guid);
    if (it != by_guid.end()) states[it->second][st.port] = &st;
  }
  std::vector<Finding> out;
  checkTier(in, in.rails.leaves, "leaves", states, out);
  checkTier(in, in.rails.upper, "switches above the leaves", states, out);
  return out;
}

}  // namespace

extern const FabricCheck kPortDown = {
    {"fabric-port-down", Severity::kError, "A switch port is down where its peers' same port is up",
     R"(In a fabric cabled to a plan, port N of every leaf holds the same kind of cable (node N's HCA of that
leaf's rail, or the same spine), so a port that is Down (Polling: no light or a bad cable; Disabled: turned
off) among peers whose port N is Active is a cable that should be there and carries nothing: a node with
a rail fewer, or a leaf with an uplink fewer. ibnetdiscover does not print ports without a link;
iblinkinfo does. `railkit fabric --iblinkinfo FILE` reads what iblinkinfo printed, finds each switch in
ibnetdiscover's output by its GUID, compares each port with the same port of the other switches of its
tier (the leaves, the switches above them), and names the ports that are Down where most peers' are
Active, with what those peers' port is cabled to. Unused ports, down on every switch, are not reported.)",
     R"(Fix: at the named port and at the other end of its cable: reseat or replace the cable or transceiver
(Polling), or enable the port (Disabled: ibportstate <lid> <port> enable, or the switch's CLI).)"},
    check};

}  // namespace railkit::fabric
