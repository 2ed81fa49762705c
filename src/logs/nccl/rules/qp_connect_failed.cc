// nccl-qp-connect-failed: moving a QP to RTR/RTS failed: the address (GID
// index), the route or the network namespace of the RDMA device is wrong.
#include "logs/nccl/rule.h"
#include "logs/nccl/text.h"

namespace railkit::logs::nccl {
namespace {

// "with error Connection timed out" (older) or "failed with 110 Connection
// timed out, on dev mlx5_0:1, ..., local GID index 3, ..." (newer).
std::string reason(std::string_view t) {
  size_t at = findIn(t, "with error ");
  if (at != std::string_view::npos) return bounded(t.substr(at + 11), 120);
  at = findIn(t, "failed with ");
  if (at == std::string_view::npos) return "no reason printed";
  std::string_view rest = t.substr(at + 12);
  size_t end = rest.find(',');
  std::string out = bounded(trimView(rest.substr(0, end)), 120);
  if (!out.empty() && isDigit(out.front())) out = "errno " + out;
  std::string_view dev = tokenAfter(t, "on dev ", " ,;");
  if (!dev.empty()) out += " on " + std::string(dev);
  if (auto gid = numberAfter(t, "local GID index ")) out += ", GID index " + std::to_string(*gid);
  return out;
}

bool match(const NcclLine& line, std::string* detail, std::string*) {
  std::string_view t = line.body;
  if (!has(t, "ibv_modify_qp") || !has(t, "fail")) return false;
  *detail = reason(t);
  return true;
}

std::optional<Finding> build(const Hits& h, const RuleContext& c) {
  if (!h.any()) return std::nullopt;
  bool timed_out = has(h.detail, "110") || has(h.detail, "timed out");
  std::string why =
      timed_out ? "the peer's NIC did not answer on the address in use (unreachable with this GID index, "
                  "route or VLAN, or a rail-only fabric where this NIC cannot reach the peer's)"
                : "the peer's address is not reachable with the GID index, route or network namespace in use";
  std::string fix =
      "for RoCE set NCCL_IB_GID_INDEX to the RoCE v2 GID of the data interface (`railkit inspect` "
      "lists GIDs and their types), make sure the RDMA device sits in the pod's network namespace "
      "with an address on it, and that both ends share a routable subnet/VLAN";
  if (timed_out) fix += "; on a rail-only fabric set NCCL_CROSS_NIC=0 so each NIC talks to the same rail";
  return makeFinding(kNcclQpConnectFailed, "queue pair",
                     "connecting an RDMA queue pair failed (ibv_modify_qp: " + h.detail + "): " + why, fix,
                     c.state, {&h});
}

}  // namespace

extern const NcclRule kNcclQpConnectFailed = {
    {"nccl-qp-connect-failed", Severity::kError, "An RDMA queue pair could not be connected",
     R"(ibv_modify_qp failed while moving a queue pair to RTR/RTS: the peer's address is not reachable with
the GID index, route or network namespace in use. errno 110 (timed out) means the peer's NIC never
answered: wrong GID index, different subnets or VLANs, or a rail-only fabric where this NIC cannot
reach the peer's (NCCL_CROSS_NIC=0).)",
     R"(Fix: NCCL_IB_GID_INDEX of the RoCE v2 GID on the data interface, the RDMA device in the pod's
network namespace with an address, both ends on a routable subnet.)"},
    match,
    build};

}  // namespace railkit::logs::nccl
