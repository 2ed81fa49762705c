#include "sys/net_state.h"

#include <arpa/inet.h>
#include <linux/dcbnl.h>
#include <linux/fib_rules.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <functional>

namespace railkit::sys {
namespace {

// Closes the socket on every return path.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

// Sends one rtnetlink request and hands every reply message to `on_message`
// until NLMSG_DONE (dumps) or the first reply (plain requests). Bounded by a
// receive timeout so a kernel that never answers cannot hang doctor.
Status netlinkRequest(const void* request, size_t length, bool dump,
                      const std::function<void(const nlmsghdr*)>& on_message) {
  Fd sock{::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE)};
  if (sock.fd < 0)
    return makeError(ErrorCode::kUnavailable, std::string("netlink socket: ") + std::strerror(errno));
  timeval tv{2, 0};
  ::setsockopt(sock.fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  sockaddr_nl kernel{};
  kernel.nl_family = AF_NETLINK;
  if (::sendto(sock.fd, request, length, 0, reinterpret_cast<sockaddr*>(&kernel), sizeof kernel) < 0)
    return makeError(ErrorCode::kIo, std::string("netlink send: ") + std::strerror(errno));
  std::vector<char> buf(64 << 10);
  for (int rounds = 0; rounds < 100000; ++rounds) {
    ssize_t n = ::recv(sock.fd, buf.data(), buf.size(), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return makeError(ErrorCode::kIo, std::string("netlink receive: ") + std::strerror(errno));
    // NLMSG_OK/NLMSG_NEXT by hand: the macros compare signed with unsigned.
    size_t size = static_cast<size_t>(n);
    for (size_t off = 0; off + sizeof(nlmsghdr) <= size;) {
      const auto* h = reinterpret_cast<const nlmsghdr*>(buf.data() + off);
      if (h->nlmsg_len < sizeof(nlmsghdr) || h->nlmsg_len > size - off) break;
      off += NLMSG_ALIGN(h->nlmsg_len);
      if (h->nlmsg_type == NLMSG_DONE) return {};
      if (h->nlmsg_type == NLMSG_ERROR) {
        const auto* err = static_cast<const nlmsgerr*>(NLMSG_DATA(h));
        if (err->error == 0) return {};
        return makeError(ErrorCode::kUnavailable, std::string("netlink: ") + std::strerror(-err->error));
      }
      on_message(h);
      if (!dump) return {};
    }
  }
  return makeError(ErrorCode::kIo, "netlink: reply too long");
}

std::string ipv4(const void* data) {
  char buf[INET_ADDRSTRLEN] = {};
  return inet_ntop(AF_INET, data, buf, sizeof buf) ? buf : "";
}

std::string ifName(uint32_t index) {
  char buf[IF_NAMESIZE] = {};
  return if_indextoname(index, buf) ? buf : std::to_string(index);
}

std::string typeName(unsigned type) {
  switch (type) {
    case RTN_UNICAST: return "unicast";
    case RTN_LOCAL: return "local";
    case RTN_BROADCAST: return "broadcast";
    case RTN_ANYCAST: return "anycast";
    case RTN_MULTICAST: return "multicast";
    case RTN_BLACKHOLE: return "blackhole";
    case RTN_UNREACHABLE: return "unreachable";
    case RTN_PROHIBIT: return "prohibit";
    case RTN_THROW: return "throw";
    default: return std::to_string(type);
  }
}

struct DumpRequest {
  nlmsghdr header;
  rtgenmsg body;
};

DumpRequest dumpRequest(uint16_t type) {
  DumpRequest r{};
  r.header.nlmsg_len = sizeof r;
  r.header.nlmsg_type = type;
  r.header.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
  r.header.nlmsg_seq = 1;
  r.body.rtgen_family = AF_INET;
  return r;
}

}  // namespace

std::string tableName(uint32_t id) {
  switch (id) {
    case RT_TABLE_LOCAL: return "local";
    case RT_TABLE_MAIN: return "main";
    case RT_TABLE_DEFAULT: return "default";
    default: return std::to_string(id);
  }
}

Result<std::vector<RoutingRule>> liveRoutingRules() {
  std::vector<RoutingRule> out;
  auto request = dumpRequest(RTM_GETRULE);
  auto st = netlinkRequest(&request, sizeof request, true, [&](const nlmsghdr* h) {
    if (h->nlmsg_type != RTM_NEWRULE) return;
    const auto* frh = static_cast<const fib_rule_hdr*>(NLMSG_DATA(h));
    if (frh->family != AF_INET) return;
    RoutingRule r;
    uint32_t table = frh->table;
    int len = static_cast<int>(RTM_PAYLOAD(h));
    for (auto* a =
             reinterpret_cast<const rtattr*>(reinterpret_cast<const char*>(frh) + NLMSG_ALIGN(sizeof *frh));
         RTA_OK(a, len); a = RTA_NEXT(a, len)) {
      const void* data = RTA_DATA(a);
      size_t size = RTA_PAYLOAD(a);
      switch (a->rta_type) {
        case FRA_PRIORITY:
          if (size >= 4) std::memcpy(&r.priority, data, 4);
          break;
        case FRA_TABLE:
          if (size >= 4) std::memcpy(&table, data, 4);
          break;
        case FRA_SRC:
          if (size >= 4) r.from = ipv4(data) + "/" + std::to_string(frh->src_len);
          break;
        case FRA_DST:
          if (size >= 4) r.to = ipv4(data) + "/" + std::to_string(frh->dst_len);
          break;
        case FRA_IIFNAME:
          r.iif = std::string(static_cast<const char*>(data), strnlen(static_cast<const char*>(data), size));
          break;
        case FRA_OIFNAME:
          r.oif = std::string(static_cast<const char*>(data), strnlen(static_cast<const char*>(data), size));
          break;
        case FRA_FWMARK:
          if (size >= 4) {
            uint32_t m;
            std::memcpy(&m, data, 4);
            r.fwmark = m;
          }
          break;
        default: break;
      }
    }
    if (frh->action == FR_ACT_TO_TBL) r.table = tableName(table);
    out.push_back(std::move(r));
  });
  if (!st) return tl::unexpected(st.error());
  return out;
}

Result<std::vector<Route>> liveRoutes() {
  std::vector<Route> out;
  auto request = dumpRequest(RTM_GETROUTE);
  auto st = netlinkRequest(&request, sizeof request, true, [&](const nlmsghdr* h) {
    if (h->nlmsg_type != RTM_NEWROUTE) return;
    const auto* rtm = static_cast<const rtmsg*>(NLMSG_DATA(h));
    if (rtm->rtm_family != AF_INET) return;
    Route r;
    uint32_t table = rtm->rtm_table;
    r.type = typeName(rtm->rtm_type);
    r.dst = "default";
    int len = static_cast<int>(RTM_PAYLOAD(h));
    for (auto* a = RTM_RTA(rtm); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
      const void* data = RTA_DATA(a);
      size_t size = RTA_PAYLOAD(a);
      switch (a->rta_type) {
        case RTA_TABLE:
          if (size >= 4) std::memcpy(&table, data, 4);
          break;
        case RTA_DST:
          if (size >= 4) r.dst = ipv4(data) + "/" + std::to_string(rtm->rtm_dst_len);
          break;
        case RTA_OIF:
          if (size >= 4) {
            uint32_t i;
            std::memcpy(&i, data, 4);
            r.dev = ifName(i);
          }
          break;
        case RTA_PREFSRC:
          if (size >= 4) r.src = ipv4(data);
          break;
        case RTA_GATEWAY:
          if (size >= 4) r.gateway = ipv4(data);
          break;
        default: break;
      }
    }
    r.table = tableName(table);
    out.push_back(std::move(r));
  });
  if (!st) return tl::unexpected(st.error());
  return out;
}

Result<uint8_t> livePfcEnabled(const std::string& netdev) {
  if (netdev.empty() || netdev.size() >= IF_NAMESIZE)
    return makeError(ErrorCode::kInvalidInput, "bad interface name");
  struct {
    nlmsghdr header;
    dcbmsg body;
    char attrs[64];
  } request{};
  request.header.nlmsg_type = RTM_GETDCB;
  request.header.nlmsg_flags = NLM_F_REQUEST;
  request.header.nlmsg_seq = 1;
  request.body.dcb_family = AF_UNSPEC;
  request.body.cmd = DCB_CMD_IEEE_GET;
  auto* attr = reinterpret_cast<rtattr*>(request.attrs);
  attr->rta_type = DCB_ATTR_IFNAME;
  attr->rta_len = RTA_LENGTH(netdev.size() + 1);
  std::memcpy(RTA_DATA(attr), netdev.c_str(), netdev.size() + 1);
  request.header.nlmsg_len = NLMSG_LENGTH(sizeof(dcbmsg)) + RTA_ALIGN(attr->rta_len);
  std::optional<uint8_t> mask;
  auto st = netlinkRequest(&request, request.header.nlmsg_len, false, [&](const nlmsghdr* h) {
    if (h->nlmsg_type != RTM_GETDCB) return;
    const auto* dcb = static_cast<const dcbmsg*>(NLMSG_DATA(h));
    int len = static_cast<int>(h->nlmsg_len - NLMSG_LENGTH(sizeof *dcb));
    for (auto* a =
             reinterpret_cast<const rtattr*>(reinterpret_cast<const char*>(dcb) + NLMSG_ALIGN(sizeof *dcb));
         RTA_OK(a, len); a = RTA_NEXT(a, len)) {
      if (a->rta_type != DCB_ATTR_IEEE) continue;
      int inner = static_cast<int>(RTA_PAYLOAD(a));
      for (auto* b = static_cast<const rtattr*>(RTA_DATA(a)); RTA_OK(b, inner); b = RTA_NEXT(b, inner)) {
        if (b->rta_type != DCB_ATTR_IEEE_PFC || RTA_PAYLOAD(b) < sizeof(ieee_pfc)) continue;
        ieee_pfc pfc;
        std::memcpy(&pfc, RTA_DATA(b), sizeof pfc);
        mask = pfc.pfc_en;
      }
    }
  });
  if (!st) return tl::unexpected(st.error());
  if (!mask) return makeError(ErrorCode::kUnavailable, netdev + ": no IEEE PFC in the DCB reply");
  return *mask;
}

}  // namespace railkit::sys
