// nccl-no-interface: NCCL found no IP interface it may use for its sockets.
#include "logs/nccl/rule.h"
#include "logs/nccl/text.h"

namespace railkit::logs::nccl {
namespace {

bool match(const NcclLine& line, std::string* detail, std::string*) {
  std::string_view t = line.body;
  bool hit =
      (has(t, "Socket creation failed") && has(t, "Address family")) || has(t, "no socket interface found") ||
      has(t, "No socket interface found") || has(t, "no usable") || has(t, "No usable listening interface") ||
      (has(t, "NCCL_SOCKET_IFNAME") && (has(t, "no interface") || has(t, "not found") || has(t, "match"))) ||
      has(t, "family 0") || has(t, "Unknown address family");
  if (!hit) return false;
  *detail = bounded(t, 200);
  return true;
}

std::optional<Finding> build(const Hits& h, const RuleContext& c) {
  if (!h.any()) return std::nullopt;
  return makeFinding(
      kNcclNoInterface, "socket interface",
      "NCCL found no usable IP interface for its bootstrap/socket traffic (" + h.detail + ")",
      "set NCCL_SOCKET_IFNAME to an interface that exists in the pod and has an address (e.g. "
      "eth0, or `^lo,docker` to exclude), check the container has networking (not `--net none`), "
      "and that IPv4/IPv6 is enabled for the family NCCL tries",
      c.state, {&h});
}

}  // namespace

extern const NcclRule kNcclNoInterface = {
    {"nccl-no-interface", Severity::kError, "NCCL found no usable IP interface",
     R"(NCCL needs an IP interface for its bootstrap and socket traffic, even on one node. It found none
that matches NCCL_SOCKET_IFNAME (or none at all: `Bootstrap : no socket interface found`), or the
address family is wrong.)",
     R"(Fix: set NCCL_SOCKET_IFNAME to an interface that exists in the container and has an address (or
`^lo,docker` to exclude), and check the container has networking.)"},
    match,
    build};

}  // namespace railkit::logs::nccl
