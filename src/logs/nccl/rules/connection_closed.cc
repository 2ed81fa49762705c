// nccl-connection-closed: a socket to a peer was closed or reset: the peer
// process died (often of another error first) or the path dropped.
#include "logs/nccl/rule.h"
#include "logs/nccl/text.h"

namespace railkit::logs::nccl {
namespace {

bool match(const NcclLine& line, std::string* detail, std::string* subject) {
  std::string_view t = line.body;
  size_t at = findIn(t, "Connection closed by remote peer");
  if (at == std::string_view::npos) at = findIn(t, "Connection closed by peer");
  bool reset = false;
  if (at == std::string_view::npos) {
    if (!has(t, "Connection reset by peer") && !has(t, "Broken pipe")) return false;
    reset = true;
  }
  if (!reset) {
    std::string_view peer = tokenAfter(t.substr(at), "peer ", " ,;");
    if (!peer.empty()) *subject = std::string(peer);
  } else {
    std::string_view peer = tokenAfter(t, " from ", " ,;");
    if (peer.empty()) peer = tokenAfter(t, " to ", " ,;");
    if (!peer.empty()) *subject = std::string(peer);
  }
  *detail = bounded(t, 200);
  return true;
}

std::optional<Finding> build(const Hits& h, const RuleContext& c) {
  if (!h.any()) return std::nullopt;
  std::string peers;
  for (const auto& p : h.subjects.values()) peers += (peers.empty() ? "" : ", ") + p;
  std::string who = peers.empty() ? "a peer (not named in the log)" : "peer " + peers;
  return makeFinding(
      kNcclConnectionClosed, peers.empty() ? "peer" : peers,
      "the connection to " + who +
          " was closed: that rank died (look at its own log for the first error) or the network "
          "path dropped",
      "read the log of " + who +
          " for its first WARN or crash (OOM kill, another NCCL error); check the pods were not "
          "evicted and the control network stayed up",
      c.state, {&h});
}

}  // namespace

extern const NcclRule kNcclConnectionClosed = {
    {"nccl-connection-closed", Severity::kError, "A socket to a peer rank was closed or reset",
     R"(NCCL's socket to another rank (bootstrap, proxy or NET/Socket) was closed by the other side or
reset. That rank usually died first (OOM kill, another NCCL error, eviction) and this is the echo;
less often the control network dropped.)",
     R"(Fix: read the named peer's own log for its first WARN or crash, check the pods were not evicted or
OOM-killed, and that the control network stayed up.)"},
    match,
    build};

}  // namespace railkit::logs::nccl
