// fabric-port-errors: error counters over their threshold, or rising
// between two reads.
#include <map>
#include <optional>
#include <utility>

#include "fabric/rules/helpers.h"

namespace railkit::fabric {
namespace {

// Where a (LID, port) is: a switch's port, or a CA's port with its own LID.
struct Place {
  std::size_t node = kNoNode;
  const PortLink* link = nullptr;  // null: the port has no cable in the capture
};

std::map<std::pair<unsigned, int>, Place> places(const Fabric& fabric) {
  std::map<std::pair<unsigned, int>, Place> out;
  for (std::size_t n = 0; n < fabric.nodes.size(); ++n) {
    const Node& node = fabric.nodes[n];
    for (const auto& link : node.ports) {
      unsigned lid = node.kind == NodeKind::kSwitch ? node.lid : link.lid;
      if (lid != 0) out[{lid, link.port}] = Place{n, &link};
    }
  }
  return out;
}

std::string where(const Fabric& fabric, const PortCounters& pc, const Place* place) {
  if (place == nullptr)
    return fmt::format("lid {} port {} (a LID the ibnetdiscover output does not show)", pc.lid, pc.port);
  const Node& node = fabric.nodes[place->node];
  const Node& peer = fabric.nodes[place->link->peer];
  std::string far = peer.kind == NodeKind::kSwitch
                        ? switchPort(fabric, place->link->peer, place->link->peer_port)
                        : fmt::format("{} port {}", peer.description, place->link->peer_port);
  std::string near = node.kind == NodeKind::kSwitch ? switchPort(fabric, place->node, pc.port)
                                                    : fmt::format("{} port {}", node.description, pc.port);
  return near + " (cable to " + far + ")";
}

std::optional<uint64_t> earlier(const CounterCapture* first, const PortCounters& pc,
                                const std::string& name) {
  if (first == nullptr) return std::nullopt;
  for (const auto& p : first->ports)
    if (p.lid == pc.lid && p.port == pc.port) {
      auto it = p.values.find(name);
      if (it != p.values.end()) return it->second;
    }
  return std::nullopt;
}

std::vector<Finding> check(const FabricInput& in) {
  if (in.counters.empty()) return {};
  const CounterCapture& last = in.counters.back();
  const CounterCapture* first = in.counters.size() > 1 ? &in.counters.front() : nullptr;
  auto at = places(in.fabric);
  std::vector<Finding> out;
  for (const auto& pc : last.ports) {
    std::string what;
    std::vector<Evidence> evidence;
    bool rising = false;
    for (const auto& counter : errorCounters()) {
      auto it = pc.values.find(counter.name);
      if (it == pc.values.end()) continue;
      auto before = earlier(first, pc, counter.name);
      bool rose = before && it->second > *before;
      if (!rose && it->second <= counter.threshold) continue;
      rising |= rose;
      what += (what.empty() ? "" : "; ") +
              (rose ? fmt::format("{} rose from {} to {} between the two reads", counter.name, *before,
                                  it->second)
                    : fmt::format("{} is {}, above {}", counter.name, it->second, counter.threshold));
      evidence.push_back({last.source, pc.lines.at(counter.name),
                          fmt::format("lid {} port {}: {} {}", pc.lid, pc.port, counter.name, it->second)});
    }
    if (what.empty()) continue;
    auto found = at.find({pc.lid, pc.port});
    const Place* place = found == at.end() ? nullptr : &found->second;
    std::string port = where(in.fabric, pc, place);
    Finding f = makeFabricFinding(
        kPortErrors, port.substr(0, port.find(" (")), port + ": " + what, std::move(evidence),
        "Read the link's health where the counters rise (`mlxlink -d <device> -p <port>` on the host, the "
        "switch's port counters): rising symbol errors or link recoveries mean a bad cable or transceiver, "
        "to "
        "reseat or replace; discards and buffer overruns mean congestion or a slow receiver. Clear the "
        "counters "
        "(perfquery -R) after the repair and read them again.");
    // A count that is high but did not rise may be old history: a warning.
    if (!rising) f.severity = Severity::kWarning;
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace

extern const FabricCheck kPortErrors = {
    {"fabric-port-errors", Severity::kError, "A port's error counters are high or rising",
     R"(Every InfiniBand port counts its errors: SymbolErrorCounter (bad bits on the wire),
LinkErrorRecoveryCounter and LinkDownedCounter (the link retrained or went down), PortRcvErrors,
PortXmitDiscards (packets dropped, often congestion or a stuck peer) and ExcessiveBufferOverrunErrors.
A failing cable or transceiver shows here long before it goes down: the link stays up while symbol
errors and retraining stall traffic, and collectives through it slow down or time out. `railkit
fabric --perfquery FILE` reads what perfquery printed for the fabric's ports (each block names its LID
and port; ibnetdiscover's output gives each LID its switch or HCA). One read: a counter above its
threshold (the example values infiniband-diags ships: 10, 100 for discards) is a warning, since it may
be old. Two reads (--perfquery twice, earlier first): a counter that rose between them is an error.)",
     R"(Fix: for the named port, read the link on both ends (mlxlink -d <device> -p <port>, the switch's
port counters), reseat or replace the cable or transceiver when symbol errors or recoveries rise, look
for congestion when discards rise; clear the counters (perfquery -R <lid> <port>) and read again.)"},
    check};

}  // namespace railkit::fabric
