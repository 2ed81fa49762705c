// nccl-qp-connect-failed: moving a QP to RTR/RTS failed: the address (GID
// index), the route or the network namespace of the RDMA device is wrong.
#include "logs/nccl/rule.h"
#include "logs/nccl/text.h"

namespace railkit::logs::nccl {
namespace {

bool match(const NcclLine& line, std::string* detail, std::string*) {
  std::string_view t = line.body;
  if (!has(t, "ibv_modify_qp") || !has(t, "fail")) return false;
  size_t at = findIn(t, "with error ");
  *detail = at == std::string_view::npos ? std::string("no reason printed") : bounded(t.substr(at + 11), 120);
  return true;
}

std::optional<Finding> build(const Hits& h, const RuleContext& c) {
  if (!h.any()) return std::nullopt;
  return makeFinding("nccl-qp-connect-failed", Severity::kError, "queue pair",
                     "connecting an RDMA queue pair failed (ibv_modify_qp: " + h.detail +
                         "): the peer's address is not reachable with the GID index, route or network namespace in "
                         "use",
                     "for RoCE set NCCL_IB_GID_INDEX to the RoCE v2 GID of the data interface (`railkit inspect` "
                     "lists GIDs and their types), make sure the RDMA device sits in the pod's network namespace "
                     "with an address on it, and that both ends share a routable subnet/VLAN",
                     c.state, {&h});
}

}  // namespace

NcclRule qpConnectFailedRule() { return {"nccl-qp-connect-failed", match, build}; }

}  // namespace railkit::logs::nccl
