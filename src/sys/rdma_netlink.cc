// RDMA netlink: the reply parser (pure), the request builders and the live
// query (see rdma_netlink.h).
#include "sys/rdma_netlink.h"

#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <optional>

namespace railkit::sys {
namespace {

constexpr size_t kHeader = sizeof(nlmsghdr);  // 16
constexpr size_t kAttrHeader = 4;             // nla_len, nla_type
constexpr uint16_t kDeviceType = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET);
constexpr uint16_t kStatType = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_STAT_GET);

template <typename T>
T load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

size_t align4(size_t n) {
  return (n + 3) & ~size_t{3};
}

Status bad(size_t offset, const std::string& what) {
  return makeError(ErrorCode::kInvalidInput,
                   "RDMA netlink reply, byte " + std::to_string(offset) + ": " + what);
}

// One attribute: its type (flags masked off), value bytes and where it starts.
struct Attr {
  uint16_t type;
  std::span<const uint8_t> value;
  size_t offset;
};

// Walks the attributes in `region` (which starts at `base` in the reply),
// calling `on_attr` for each; fails on a length that cannot be.
template <typename F>
Status forEachAttr(std::span<const uint8_t> region, size_t base, F&& on_attr) {
  for (size_t off = 0; off < region.size();) {
    if (region.size() - off < kAttrHeader) return bad(base + off, "truncated attribute header");
    uint16_t len = load<uint16_t>(region.data() + off);
    uint16_t type = load<uint16_t>(region.data() + off + 2) & NLA_TYPE_MASK;
    if (len < kAttrHeader || len > region.size() - off)
      return bad(base + off, "attribute length " + std::to_string(len) + " outside its message");
    if (auto st = on_attr(Attr{type, region.subspan(off + kAttrHeader, len - kAttrHeader), base + off}); !st)
      return st;
    off += align4(len);
  }
  return okStatus();
}

Result<uint32_t> u32(const Attr& a) {
  if (a.value.size() < 4)
    return tl::unexpected(
        bad(a.offset, "u32 attribute of " + std::to_string(a.value.size()) + " bytes").error());
  return load<uint32_t>(a.value.data());
}

std::string str(const Attr& a) {
  auto chars = reinterpret_cast<const char*>(a.value.data());
  return std::string(chars, strnlen(chars, a.value.size()));
}

// The handle every NLDEV message starts with.
Status commonAttr(const Attr& a, uint32_t& index, std::string& name, uint32_t& port) {
  if (a.type == RDMA_NLDEV_ATTR_DEV_INDEX || a.type == RDMA_NLDEV_ATTR_PORT_INDEX) {
    auto v = u32(a);
    if (!v) return tl::unexpected(v.error());
    (a.type == RDMA_NLDEV_ATTR_DEV_INDEX ? index : port) = *v;
  } else if (a.type == RDMA_NLDEV_ATTR_DEV_NAME) {
    name = str(a);
  }
  return okStatus();
}

Status parseHwCounters(const Attr& table, RdmaNlPortStats& out) {
  return forEachAttr(table.value, table.offset + kAttrHeader, [&](const Attr& entry) -> Status {
    if (entry.type != RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY) return okStatus();
    std::string name;
    std::optional<uint64_t> value;
    auto st = forEachAttr(entry.value, entry.offset + kAttrHeader, [&](const Attr& a) -> Status {
      if (a.type == RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME) name = str(a);
      if (a.type == RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE) {
        if (a.value.size() < 8)
          return bad(a.offset, "counter value of " + std::to_string(a.value.size()) + " bytes");
        value = load<uint64_t>(a.value.data());
      }
      return okStatus();
    });
    if (!st) return st;
    // An entry without a name or value is not a counter we can label.
    if (!name.empty() && value) out.counters.emplace_back(std::move(name), *value);
    return okStatus();
  });
}

Status parseMessage(uint16_t type, std::span<const uint8_t> payload, size_t base, RdmaNlReply& out) {
  if (type == kDeviceType) {
    RdmaNlDevice d;
    auto st = forEachAttr(payload, base,
                          [&](const Attr& a) { return commonAttr(a, d.index, d.name, d.last_port); });
    if (!st) return st;
    out.devices.push_back(std::move(d));
  } else if (type == kStatType) {
    RdmaNlPortStats p;
    auto st = forEachAttr(payload, base, [&](const Attr& a) -> Status {
      if (a.type == RDMA_NLDEV_ATTR_STAT_HWCOUNTERS) return parseHwCounters(a, p);
      return commonAttr(a, p.device_index, p.device, p.port);
    });
    if (!st) return st;
    out.port_stats.push_back(std::move(p));
  }
  return okStatus();
}

}  // namespace

Result<RdmaNlReply> parseRdmaNetlink(std::span<const uint8_t> bytes) {
  RdmaNlReply out;
  for (size_t off = 0; off < bytes.size();) {
    if (bytes.size() - off < kHeader) return tl::unexpected(bad(off, "truncated message header").error());
    uint32_t len = load<uint32_t>(bytes.data() + off);
    uint16_t type = load<uint16_t>(bytes.data() + off + 4);
    if (len < kHeader || len > bytes.size() - off)
      return tl::unexpected(bad(off, "message length " + std::to_string(len) + " outside the reply").error());
    auto payload = bytes.subspan(off + kHeader, len - kHeader);
    if (type == NLMSG_DONE) {
      out.done = true;
    } else if (type == NLMSG_ERROR) {
      if (payload.size() < sizeof(int32_t))
        return tl::unexpected(bad(off, "truncated error message").error());
      // The kernel sends -errno; negating INT32_MIN would overflow.
      int32_t e = load<int32_t>(payload.data());
      out.error = e == INT32_MIN ? INT32_MAX : -e;
    } else if (auto st = parseMessage(type, payload, off + kHeader, out); !st) {
      return tl::unexpected(st.error());
    }
    off += std::min<size_t>(align4(len), bytes.size() - off);
  }
  return out;
}

namespace {

std::vector<uint8_t> header(uint16_t type, uint16_t flags, uint32_t seq) {
  std::vector<uint8_t> out(kHeader, 0);
  std::memcpy(out.data() + 4, &type, 2);
  std::memcpy(out.data() + 6, &flags, 2);
  std::memcpy(out.data() + 8, &seq, 4);
  return out;
}

void putU32(std::vector<uint8_t>& msg, uint16_t type, uint32_t value) {
  uint16_t len = kAttrHeader + 4;
  size_t at = msg.size();
  msg.resize(at + 8);
  std::memcpy(msg.data() + at, &len, 2);
  std::memcpy(msg.data() + at + 2, &type, 2);
  std::memcpy(msg.data() + at + 4, &value, 4);
}

std::vector<uint8_t> finish(std::vector<uint8_t> msg) {
  uint32_t len = static_cast<uint32_t>(msg.size());
  std::memcpy(msg.data(), &len, 4);
  return msg;
}

}  // namespace

std::vector<uint8_t> rdmaDeviceDumpRequest(uint32_t seq) {
  return finish(header(kDeviceType, NLM_F_REQUEST | NLM_F_DUMP, seq));
}

std::vector<uint8_t> rdmaPortStatsRequest(uint32_t seq, uint32_t device_index, uint32_t port) {
  auto msg = header(kStatType, NLM_F_REQUEST, seq);
  putU32(msg, RDMA_NLDEV_ATTR_DEV_INDEX, device_index);
  putU32(msg, RDMA_NLDEV_ATTR_PORT_INDEX, port);
  return finish(std::move(msg));
}

namespace {

struct NetlinkSocket {
  int fd = -1;
  ~NetlinkSocket() {
    if (fd >= 0) ::close(fd);
  }
};

// Sends `request` and parses replies until a dump's NLMSG_DONE, an error, or
// (plain requests) the first reply datagram.
Result<RdmaNlReply> exchange(const NetlinkSocket& sock, const std::vector<uint8_t>& request, bool dump) {
  sockaddr_nl kernel{};
  kernel.nl_family = AF_NETLINK;
  if (::sendto(sock.fd, request.data(), request.size(), 0, reinterpret_cast<sockaddr*>(&kernel),
               sizeof kernel) < 0)
    return makeError(ErrorCode::kIo, std::string("RDMA netlink send: ") + std::strerror(errno));
  RdmaNlReply all;
  std::vector<uint8_t> buf(64 << 10);
  for (int rounds = 0; rounds < 4096; ++rounds) {
    ssize_t n = ::recv(sock.fd, buf.data(), buf.size(), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      return makeError(ErrorCode::kIo, std::string("RDMA netlink receive: ") + std::strerror(errno));
    auto part = parseRdmaNetlink(std::span<const uint8_t>(buf.data(), static_cast<size_t>(n)));
    if (!part) return tl::unexpected(part.error());
    for (auto& d : part->devices) all.devices.push_back(std::move(d));
    for (auto& p : part->port_stats) all.port_stats.push_back(std::move(p));
    all.error = part->error;
    if (part->error != 0 || part->done || !dump) return all;
  }
  return makeError(ErrorCode::kIo, "RDMA netlink: reply too long");
}

}  // namespace

Result<RdmaNlStatistics> liveRdmaStatistics(int timeout_ms) {
  NetlinkSocket sock{::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_RDMA)};
  if (sock.fd < 0) {
    int e = errno;
    if (e == EPROTONOSUPPORT || e == EAFNOSUPPORT)
      return makeError(ErrorCode::kUnavailable, "the kernel has no RDMA netlink (ib_core not loaded)");
    return makeError(ErrorCode::kIo, std::string("RDMA netlink socket: ") + std::strerror(e));
  }
  timeval tv{timeout_ms / 1000, (timeout_ms % 1000) * 1000};
  ::setsockopt(sock.fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  uint32_t seq = 1;
  auto devices = exchange(sock, rdmaDeviceDumpRequest(seq++), true);
  if (!devices) return tl::unexpected(devices.error());
  if (devices->error != 0)
    return makeError(
        devices->error == EOPNOTSUPP || devices->error == ENOENT ? ErrorCode::kUnavailable : ErrorCode::kIo,
        std::string("RDMA netlink device dump: ") + std::strerror(devices->error));
  RdmaNlStatistics out;
  out.devices = std::move(devices->devices);
  // A device reports its last port; ports of an HCA count from 1 (a switch's
  // port 0 has no per-port counters).
  constexpr uint32_t kMaxPorts = 256;
  for (const auto& d : out.devices)
    for (uint32_t port = 1; port <= d.last_port && port <= kMaxPorts; ++port) {
      auto stats = exchange(sock, rdmaPortStatsRequest(seq++, d.index, port), false);
      if (!stats) return tl::unexpected(stats.error());
      // EOPNOTSUPP: the driver keeps no counters for this port.
      for (auto& p : stats->port_stats) out.ports.push_back(std::move(p));
    }
  return out;
}

}  // namespace railkit::sys
