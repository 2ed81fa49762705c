// Parsers of kernel text: good input, truncated input, garbage.
#include "sys/parsers.h"

#include <gtest/gtest.h>

#include "sys/pci_config.h"

using namespace railkit::sys;

TEST(SysParsers, Rates) {
  EXPECT_DOUBLE_EQ(parseRateGbps("400 Gb/sec (4X NDR)\n").value(), 400.0);
  EXPECT_DOUBLE_EQ(parseRateGbps("100 Gb/sec (4X EDR)").value(), 100.0);
  EXPECT_DOUBLE_EQ(parseRateGbps("25 Gb/sec (1X EDR)").value(), 25.0);
  EXPECT_DOUBLE_EQ(parseRateGbps("2.5 Gb/sec (1X SDR)").value(), 2.5);
  EXPECT_FALSE(parseRateGbps("400").has_value());
  EXPECT_FALSE(parseRateGbps("").has_value());
  EXPECT_FALSE(parseRateGbps("fast Gb/sec").has_value());
  EXPECT_FALSE(parseRateGbps("-5 Gb/sec").has_value());
}

TEST(SysParsers, States) {
  EXPECT_EQ(parseStateName("4: ACTIVE\n"), "ACTIVE");
  EXPECT_EQ(parseStateName("5: LinkUp"), "LinkUp");
  EXPECT_EQ(parseStateName("1: DOWN"), "DOWN");
  EXPECT_EQ(parseStateName("ACTIVE"), "ACTIVE");
  EXPECT_EQ(parseStateName(""), "");
  EXPECT_EQ(parseStateName("x: y"), "x: y");
  EXPECT_EQ(parseGidType(" RoCE v2\n"), "RoCE v2");
  EXPECT_TRUE(isZeroGid("0000:0000:0000:0000:0000:0000:0000:0000"));
  EXPECT_FALSE(isZeroGid("fe80:0000:0000:0000:0000:0000:0000:0001"));
}

TEST(SysParsers, StateCodes) {
  EXPECT_EQ(parseStateCode("5: LinkUp\n"), 5);
  EXPECT_EQ(parseStateCode("4: ACTIVE"), 4);
  EXPECT_EQ(parseStateCode("LinkUp"), std::nullopt);
  EXPECT_EQ(parseStateCode("x: y"), std::nullopt);
  EXPECT_EQ(parseStateCode("300: Big"), std::nullopt);
  EXPECT_EQ(physStateNameOfCode(5), "LinkUp");
  EXPECT_EQ(physStateNameOfCode(3), "Disabled");
  EXPECT_EQ(physStateNameOfCode(4), "PortConfigurationTraining");
  EXPECT_EQ(physStateNameOfCode(9), "");
}

TEST(SysParsers, MeminfoTotal) {
  EXPECT_EQ(parseMeminfoTotalBytes("MemTotal:       15666184 kB\nMemFree:  440324 kB\n"), 15666184ull * 1024);
  EXPECT_EQ(parseMeminfoTotalBytes("MemFree: 1 kB\n"), std::nullopt);
  EXPECT_EQ(parseMeminfoTotalBytes("MemTotal: lots kB\n"), std::nullopt);
  EXPECT_EQ(parseMeminfoTotalBytes("MemTotal: 18446744073709551615 kB\n"), std::nullopt);  // overflows bytes
}

TEST(SysParsers, LimitsMemlock) {
  std::string real =
      "Limit                     Soft Limit           Hard Limit           Units     \n"
      "Max locked memory         65536                65536                bytes     \n";
  auto m = parseLimitsMemlock(real);
  ASSERT_TRUE(m.has_value());
  EXPECT_FALSE(m->unlimited);
  EXPECT_EQ(m->bytes, 65536u);
  auto u = parseLimitsMemlock("Max locked memory         unlimited            unlimited            bytes\n");
  ASSERT_TRUE(u.has_value());
  EXPECT_TRUE(u->unlimited);
  EXPECT_FALSE(parseLimitsMemlock("Max locked memory").has_value());
  EXPECT_FALSE(parseLimitsMemlock("Max locked memory   lots  lots bytes").has_value());
  EXPECT_FALSE(parseLimitsMemlock("\x01\x02garbage").has_value());
}

TEST(SysParsers, StatusCapEff) {
  EXPECT_EQ(parseStatusCapEff("Name:\tx\nCapEff:\t00000000a80465fb\nCapBnd:\t0\n").value(), 0xa80465fbull);
  EXPECT_FALSE(parseStatusCapEff("CapEff:\n").has_value());
  EXPECT_FALSE(parseStatusCapEff("CapEff:\tzz").has_value());
  EXPECT_FALSE(parseStatusCapEff("CapEff:\t0000000000000000000001").has_value());
  EXPECT_FALSE(parseStatusCapEff("").has_value());
}

TEST(SysParsers, MountinfoShm) {
  std::string line = "2818 2812 0:398 / /dev/shm rw,nosuid,nodev - tmpfs shm rw,size=65536k,inode64\n";
  EXPECT_EQ(parseMountinfoShmBytes(line).value(), 64ull << 20);
  EXPECT_TRUE(mountinfoHasShm(line));
  EXPECT_EQ(parseMountinfoShmBytes("1 2 0:1 / /dev/shm rw shared:5 - tmpfs tmpfs rw,size=1g\n").value(),
            1ull << 30);
  EXPECT_FALSE(parseMountinfoShmBytes("1 2 0:1 / /dev/shm rw - tmpfs tmpfs rw,inode64\n").has_value());
  EXPECT_FALSE(parseMountinfoShmBytes("1 2 0:1 / /dev/shm rw - tmpfs").has_value());
  EXPECT_FALSE(parseMountinfoShmBytes("1 2 0:1 / /run rw - tmpfs tmpfs rw,size=1k\n").has_value());
  EXPECT_FALSE(
      parseMountinfoShmBytes("1 2 0:1 / /dev/shm rw - tmpfs s rw,size=99999999999999999999k\n").has_value());
  EXPECT_FALSE(mountinfoHasShm("garbage"));
}

TEST(SysParsers, LinkSpeed) {
  EXPECT_DOUBLE_EQ(parseLinkSpeedGts("32.0 GT/s PCIe").value(), 32.0);
  EXPECT_DOUBLE_EQ(parseLinkSpeedGts("8 GT/s").value(), 8.0);
  EXPECT_FALSE(parseLinkSpeedGts("Unknown").has_value());
}

namespace {
std::vector<uint8_t> config(size_t size, uint16_t acs_at, uint16_t control) {
  std::vector<uint8_t> c(size, 0);
  if (size < 4096) return c;
  c[0x100] = 0x01;  // AER, next = acs_at
  c[0x102] = 0x02 | static_cast<uint8_t>((acs_at & 0xf) << 4);
  c[0x103] = static_cast<uint8_t>(acs_at >> 4);
  c[acs_at] = 0x0d;
  c[acs_at + 2] = 0x01;
  c[acs_at + 6] = control & 0xff;
  c[acs_at + 7] = control >> 8;
  return c;
}
}  // namespace

TEST(SysPciConfig, FindsAcsAndControlBits) {
  auto on = parsePciConfigAcs(config(4096, 0x148, 0x0005));
  EXPECT_TRUE(on.known);
  EXPECT_TRUE(on.capable);
  EXPECT_EQ(on.offset, 0x148);
  EXPECT_TRUE(on.request_redirect());
  EXPECT_TRUE(on.source_validation());
  auto off = parsePciConfigAcs(config(4096, 0x200, 0));
  EXPECT_TRUE(off.capable);
  EXPECT_FALSE(off.request_redirect());
}

TEST(SysPciConfig, ShortOrLoopingConfigIsNotOff) {
  EXPECT_FALSE(parsePciConfigAcs(config(256, 0x148, 5)).known);
  EXPECT_FALSE(parsePciConfigAcs(config(64, 0x148, 5)).known);
  EXPECT_FALSE(parsePciConfigAcs({}).known);
  std::vector<uint8_t> loop(4096, 0);
  loop[0x100] = 0x01;
  loop[0x103] = 0x10;  // next = 0x100: itself
  auto r = parsePciConfigAcs(loop);
  EXPECT_TRUE(r.known);
  EXPECT_FALSE(r.capable);
  std::vector<uint8_t> ones(4096, 0xff);
  EXPECT_FALSE(parsePciConfigAcs(ones).capable);
}

TEST(SysParsers, DefaultRouteInterface) {
  const char* table =
      "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n"
      "net1\t0000640A\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n"
      "eth1\t00000000\t0100A8C0\t0003\t0\t0\t200\t00000000\t0\t0\t0\n"
      "eth0\t00000000\t0101F40A\t0003\t0\t0\t100\t00000000\t0\t0\t0\n"
      "eth2\t00000000\t0101F40A\t0002\t0\t0\t0\t00000000\t0\t0\t0\n";
  // eth2's route is not up; eth0 has the lower metric.
  EXPECT_EQ(parseDefaultRouteInterface(table).value_or(""), "eth0");
  EXPECT_FALSE(parseDefaultRouteInterface("Iface\tDestination\n").has_value());
  EXPECT_FALSE(parseDefaultRouteInterface("").has_value());
  EXPECT_FALSE(parseDefaultRouteInterface("net1\t0000640A\t00000000\t0001\t0\t0\t0\t00FFFFFF\n").has_value());
  EXPECT_FALSE(parseDefaultRouteInterface("eth0\t00000000\t0\tzz\t0\t0\t0\t00000000\n").has_value());
}
