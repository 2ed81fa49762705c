// RDMA netlink reply parsing from canned messages built here the way the
// kernel builds them (nldev.c: a handle of device index and name, the port
// index, then RDMA_NLDEV_ATTR_STAT_HWCOUNTERS, one nested entry per counter
// with a NUL-terminated name and a u64 value), the request bytes, and the
// live query failing cleanly where the kernel has no RDMA netlink.
#include "sys/rdma_netlink.h"

#include <gtest/gtest.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>
#include <sys/socket.h>
#include <unistd.h>

#include <climits>
#include <cstring>
#include <string>
#include <vector>

namespace railkit::sys {
namespace {

using Bytes = std::vector<uint8_t>;

void pad(Bytes& b) {
  while (b.size() % 4) b.push_back(0);
}

// Byte by byte: GCC 12 warns (-Warray-bounds, wrongly) on memcpy followed by insert.
void append(Bytes& b, const void* p, size_t n) {
  for (size_t i = 0; i < n; ++i) b.push_back(static_cast<const uint8_t*>(p)[i]);
}

Bytes attr(uint16_t type, const Bytes& value) {
  Bytes out;
  uint16_t len = static_cast<uint16_t>(4 + value.size());
  append(out, &len, 2);
  append(out, &type, 2);
  append(out, value.data(), value.size());
  pad(out);
  return out;
}
template <typename T>
Bytes raw(T v) {
  Bytes out(sizeof v);
  std::memcpy(out.data(), &v, sizeof v);
  return out;
}
Bytes str(const std::string& s) {
  Bytes out(s.begin(), s.end());
  out.push_back(0);
  return out;
}
Bytes cat(std::initializer_list<Bytes> parts) {
  Bytes out;
  for (const auto& p : parts) append(out, p.data(), p.size());
  return out;
}
Bytes nest(uint16_t type, const Bytes& inner) {
  return attr(type | NLA_F_NESTED, inner);
}

Bytes message(uint16_t type, const Bytes& payload, uint16_t flags = NLM_F_MULTI) {
  Bytes out;
  uint32_t len = static_cast<uint32_t>(16 + payload.size());
  uint32_t seq = 0, pid = 0;
  append(out, &len, 4);
  append(out, &type, 2);
  append(out, &flags, 2);
  append(out, &seq, 4);
  append(out, &pid, 4);
  append(out, payload.data(), payload.size());
  pad(out);
  return out;
}

constexpr uint16_t kDev = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET);
constexpr uint16_t kStat = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_STAT_GET);

Bytes device(uint32_t index, const std::string& name, uint32_t last_port) {
  return message(kDev,
                 cat({attr(RDMA_NLDEV_ATTR_DEV_INDEX, raw(index)), attr(RDMA_NLDEV_ATTR_DEV_NAME, str(name)),
                      attr(RDMA_NLDEV_ATTR_FW_VERSION, str("28.39.1002")),
                      attr(RDMA_NLDEV_ATTR_PORT_INDEX, raw(last_port))}));
}

Bytes counter(const std::string& name, uint64_t value) {
  return nest(RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY,
              cat({attr(RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME, str(name)), attr(RDMA_NLDEV_ATTR_PAD, {}),
                   attr(RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE, raw(value))}));
}

Bytes portStats(uint32_t index, const std::string& name, uint32_t port, const Bytes& counters) {
  return message(
      kStat,
      cat({attr(RDMA_NLDEV_ATTR_DEV_INDEX, raw(index)), attr(RDMA_NLDEV_ATTR_DEV_NAME, str(name)),
           attr(RDMA_NLDEV_ATTR_PORT_INDEX, raw(port)), nest(RDMA_NLDEV_ATTR_STAT_HWCOUNTERS, counters)}),
      0);
}

Bytes done() {
  return message(NLMSG_DONE, raw(int32_t{0}));
}
Bytes error(int e) {
  return message(NLMSG_ERROR, cat({raw(int32_t{-e}), Bytes(16, 0)}), 0);
}

Result<RdmaNlReply> parse(const Bytes& b) {
  return parseRdmaNetlink(std::span<const uint8_t>(b.data(), b.size()));
}

TEST(RdmaNetlinkParse, DeviceDumpOfSeveralDevices) {
  auto reply = parse(cat({device(0, "mlx5_0", 1), device(3, "mlx5_bond_0", 2), done()}));
  ASSERT_TRUE(reply) << reply.error().message;
  ASSERT_EQ(reply->devices.size(), 2u);
  EXPECT_EQ(reply->devices[0].index, 0u);
  EXPECT_EQ(reply->devices[0].name, "mlx5_0");
  EXPECT_EQ(reply->devices[0].last_port, 1u);
  EXPECT_EQ(reply->devices[1].index, 3u);
  EXPECT_EQ(reply->devices[1].name, "mlx5_bond_0");
  EXPECT_EQ(reply->devices[1].last_port, 2u);
  EXPECT_TRUE(reply->done);
  EXPECT_EQ(reply->error, 0);
  EXPECT_TRUE(reply->port_stats.empty());
}

TEST(RdmaNetlinkParse, PortCountersOfTwoPortsInDriverOrder) {
  auto reply = parse(cat({portStats(1, "mlx5_1", 1,
                                    cat({counter("rx_write_requests", 7), counter("np_cnp_sent", 1532),
                                         counter("out_of_sequence", 0x1'0000'0003ULL)})),
                          portStats(1, "mlx5_1", 2, counter("rp_cnp_handled", 1480))}));
  ASSERT_TRUE(reply) << reply.error().message;
  ASSERT_EQ(reply->port_stats.size(), 2u);
  const auto& p1 = reply->port_stats[0];
  EXPECT_EQ(p1.device, "mlx5_1");
  EXPECT_EQ(p1.device_index, 1u);
  EXPECT_EQ(p1.port, 1u);
  ASSERT_EQ(p1.counters.size(), 3u);
  EXPECT_EQ(p1.counters[0], (std::pair<std::string, uint64_t>{"rx_write_requests", 7}));
  EXPECT_EQ(p1.counters[1], (std::pair<std::string, uint64_t>{"np_cnp_sent", 1532}));
  EXPECT_EQ(p1.counters[2].second, 0x1'0000'0003ULL);
  EXPECT_EQ(reply->port_stats[1].port, 2u);
  ASSERT_EQ(reply->port_stats[1].counters.size(), 1u);
  EXPECT_EQ(reply->port_stats[1].counters[0].first, "rp_cnp_handled");
  EXPECT_FALSE(reply->done);
}

TEST(RdmaNetlinkParse, UnknownAttributesAndMessagesAreSkipped) {
  Bytes unknown_attr = attr(0x7ff0, Bytes(13, 0xab));
  Bytes stats = message(
      kStat,
      cat({unknown_attr, attr(RDMA_NLDEV_ATTR_DEV_INDEX, raw(uint32_t{2})),
           attr(RDMA_NLDEV_ATTR_DEV_NAME, str("rxe0")), attr(RDMA_NLDEV_ATTR_PORT_INDEX, raw(uint32_t{1})),
           nest(RDMA_NLDEV_ATTR_STAT_HWCOUNTERS,
                cat({attr(0x7ff1, raw(uint64_t{9})), counter("ack_deferred", 4),
                     // An entry without a value labels nothing.
                     nest(RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY,
                          attr(RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME, str("lonely")))}))}),
      0);
  Bytes other_command = message(RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_RES_GET), Bytes(8, 1));
  auto reply = parse(cat({other_command, stats, error(0)}));
  ASSERT_TRUE(reply) << reply.error().message;
  ASSERT_EQ(reply->port_stats.size(), 1u);
  EXPECT_EQ(reply->port_stats[0].device, "rxe0");
  ASSERT_EQ(reply->port_stats[0].counters.size(), 1u);
  EXPECT_EQ(reply->port_stats[0].counters[0].first, "ack_deferred");
  EXPECT_EQ(reply->port_stats[0].counters[0].second, 4u);
  EXPECT_EQ(reply->error, 0) << "an NLMSG_ERROR of 0 is an acknowledgement";
  EXPECT_TRUE(reply->devices.empty());
}

TEST(RdmaNetlinkParse, KernelErrorIsReportedAsErrno) {
  auto reply = parse(error(EOPNOTSUPP));
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->error, EOPNOTSUPP);
  // A bogus error code that cannot be negated is still an error, not overflow.
  auto weird = parse(message(NLMSG_ERROR, raw(int32_t{INT32_MIN}), 0));
  ASSERT_TRUE(weird);
  EXPECT_NE(weird->error, 0);
}

TEST(RdmaNetlinkParse, TruncatedAndBogusLengthsAreErrorsNamingTheByte) {
  Bytes good = cat({device(0, "mlx5_0", 1), portStats(0, "mlx5_0", 1, counter("np_cnp_sent", 1))});
  // Every prefix that cuts a message short is an error or a shorter, valid
  // reply; none may read past the end (ASan builds run this too).
  for (size_t n = 0; n < good.size(); ++n) {
    Bytes cut(good.begin(), good.begin() + static_cast<long>(n));
    auto r = parse(cut);
    if (r) {
      EXPECT_LE(r->devices.size() + r->port_stats.size(), 1u) << n;
    }
  }
  auto short_header = parse(Bytes(good.begin(), good.begin() + 10));
  ASSERT_FALSE(short_header);
  EXPECT_EQ(short_header.error().code, ErrorCode::kInvalidInput);
  EXPECT_NE(short_header.error().message.find("byte 0: truncated message header"), std::string::npos)
      << short_header.error().message;

  Bytes too_long = good;
  uint32_t huge = 1u << 20;
  std::memcpy(too_long.data(), &huge, 4);
  auto r1 = parse(too_long);
  ASSERT_FALSE(r1);
  EXPECT_NE(r1.error().message.find("message length 1048576 outside the reply"), std::string::npos)
      << r1.error().message;

  Bytes too_short = good;
  uint32_t eight = 8;
  std::memcpy(too_short.data(), &eight, 4);
  EXPECT_FALSE(parse(too_short));

  // The first attribute of the first message claims 200 bytes.
  Bytes bad_attr = good;
  uint16_t big = 200;
  std::memcpy(bad_attr.data() + 16, &big, 2);
  auto r2 = parse(bad_attr);
  ASSERT_FALSE(r2);
  EXPECT_NE(r2.error().message.find("byte 16: attribute length 200"), std::string::npos)
      << r2.error().message;

  // An attribute shorter than its own header.
  uint16_t two = 2;
  std::memcpy(bad_attr.data() + 16, &two, 2);
  EXPECT_FALSE(parse(bad_attr));

  // A device index of 2 bytes instead of 4.
  Bytes small_u32 = message(kDev, attr(RDMA_NLDEV_ATTR_DEV_INDEX, raw(uint16_t{5})));
  auto r3 = parse(small_u32);
  ASSERT_FALSE(r3);
  EXPECT_NE(r3.error().message.find("u32 attribute of 2 bytes"), std::string::npos) << r3.error().message;

  // A counter value of 4 bytes inside the nested table.
  Bytes small_value =
      portStats(0, "mlx5_0", 1,
                nest(RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY,
                     cat({attr(RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME, str("x")),
                          attr(RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE, raw(uint32_t{1}))})));
  auto r4 = parse(small_value);
  ASSERT_FALSE(r4);
  EXPECT_NE(r4.error().message.find("counter value of 4 bytes"), std::string::npos) << r4.error().message;

  auto short_error = parse(message(NLMSG_ERROR, Bytes{}));
  EXPECT_FALSE(short_error);
}

TEST(RdmaNetlinkParse, NameWithoutNulIsTakenWhole) {
  Bytes m = message(kDev, cat({attr(RDMA_NLDEV_ATTR_DEV_NAME, Bytes{'r', 'x', 'e'}),
                               attr(RDMA_NLDEV_ATTR_DEV_INDEX, raw(uint32_t{4}))}));
  auto reply = parse(m);
  ASSERT_TRUE(reply) << reply.error().message;
  ASSERT_EQ(reply->devices.size(), 1u);
  EXPECT_EQ(reply->devices[0].name, "rxe");
  EXPECT_EQ(reply->devices[0].index, 4u);
}

TEST(RdmaNetlinkRequest, PortStatsRequestCarriesDeviceAndPort) {
  Bytes req = rdmaPortStatsRequest(7, 3, 2);
  ASSERT_EQ(req.size(), 32u);
  uint32_t len = 0, seq = 0, dev = 0, port = 0;
  uint16_t type = 0, flags = 0;
  std::memcpy(&len, req.data(), 4);
  std::memcpy(&type, req.data() + 4, 2);
  std::memcpy(&flags, req.data() + 6, 2);
  std::memcpy(&seq, req.data() + 8, 4);
  std::memcpy(&dev, req.data() + 20, 4);
  std::memcpy(&port, req.data() + 28, 4);
  EXPECT_EQ(len, 32u);
  EXPECT_EQ(type, kStat);
  EXPECT_EQ(flags, NLM_F_REQUEST);
  EXPECT_EQ(seq, 7u);
  EXPECT_EQ(dev, 3u);
  EXPECT_EQ(port, 2u);
  Bytes dump = rdmaDeviceDumpRequest(1);
  ASSERT_EQ(dump.size(), 16u);
  std::memcpy(&type, dump.data() + 4, 2);
  std::memcpy(&flags, dump.data() + 6, 2);
  EXPECT_EQ(type, kDev);
  EXPECT_EQ(flags, NLM_F_REQUEST | NLM_F_DUMP);
}

TEST(RdmaNetlinkLive, AnswersOrSaysTheKernelHasNone) {
  int probe = ::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_RDMA);
  int probe_errno = errno;
  if (probe >= 0) ::close(probe);
  auto stats = liveRdmaStatistics(1000);
  if (probe < 0 && (probe_errno == EPROTONOSUPPORT || probe_errno == EAFNOSUPPORT)) {
    ASSERT_FALSE(stats);
    EXPECT_EQ(stats.error().code, ErrorCode::kUnavailable);
    EXPECT_NE(stats.error().message.find("no RDMA netlink"), std::string::npos) << stats.error().message;
    return;
  }
  // A kernel with ib_core: the dump works (perhaps with no devices) and every
  // port reported belongs to a listed device.
  ASSERT_TRUE(stats) << stats.error().message;
  for (const auto& p : stats->ports) {
    bool listed = false;
    for (const auto& d : stats->devices) listed |= d.name == p.device && p.port >= 1 && p.port <= d.last_port;
    EXPECT_TRUE(listed) << p.device << " port " << p.port;
  }
}

}  // namespace
}  // namespace railkit::sys
