// Real ibnetdiscover captures (tests/fixtures/fabric/README.md names each
// source): each parses, and what railkit reports in each is the fault the
// capture really holds.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "fabric/iblinkinfo.h"
#include "fabric/ibnetdiscover.h"
#include "fabric/report.h"

namespace railkit::fabric {
namespace {

const std::string kFixtures = std::string(RAILKIT_SOURCE_DIR) + "/tests/fixtures/fabric/";

FabricReport readFixture(const std::string& name) {
  auto f = readIbnetdiscoverFile(kFixtures + name);
  EXPECT_TRUE(f) << f.error().message;
  return f ? analyseFabric(*f) : FabricReport{};
}

TEST(RealCaptures, SuperPodLeavesWithASwappedPair) {
  auto r = readFixture("topograph-su8-leaves.out");
  EXPECT_EQ(r.leaves, 2);
  EXPECT_EQ(r.upper, 9);  // the spines the two leaves' uplinks name
  EXPECT_EQ(r.hosts, 14);
  EXPECT_EQ(r.rails, 2);
  EXPECT_EQ(r.unnamed, 6);
  ASSERT_EQ(r.findings.size(), 3u);
  EXPECT_EQ(r.findings[0].id, "rail-miscabled");
  EXPECT_EQ(r.findings[0].subject, "b08-p1-dgx-08-c01 HCA-5");
  EXPECT_EQ(
      r.findings[0].message,
      "b08-p1-dgx-08-c01 HCA-5 (rail 0) is on B09-P1-IBLEAF-04-08 port 1; B09-P1-IBLEAF-04-08 holds rail 1 "
      "(13 of its HCAs are HCA-6); the 13 other nodes' rail 0 are on B09-P1-IBLEAF-03-08; "
      "b08-p1-dgx-08-c01's rail-1 HCA HCA-6 is on B09-P1-IBLEAF-03-08 port 1 instead: the two cables are "
      "swapped");
  EXPECT_EQ(r.findings[1].id, "rail-miscabled");
  EXPECT_EQ(r.findings[1].subject, "b08-p1-dgx-08-c01 HCA-6");
  EXPECT_EQ(r.findings[2].id, "ib-node-description-default");
  EXPECT_EQ(r.errors, 2);
}

TEST(RealCaptures, PortDownSeesNoSwitch) {
  auto r = readFixture("topograph-port-down.out");
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].id, "fabric-no-switch");
  EXPECT_EQ(
      r.findings[0].message,
      "ibnetdiscover saw no switch, only \"dgx-gb200-n01-c1 HCA-1\": the port it ran from has no link to the "
      "fabric");
  EXPECT_EQ(r.findings[0].evidence[0].line, 10);
}

TEST(RealCaptures, ManPageExample) {
  auto f = readIbnetdiscoverFile(kFixtures + "infiniband-diags-manpage.out");
  ASSERT_TRUE(f) << f.error().message;
  int switches = 0, cas = 0;
  for (const auto& n : f->nodes) (n.kind == NodeKind::kSwitch ? switches : cas) += 1;
  EXPECT_EQ(switches, 2);
  EXPECT_EQ(cas, 4);
  auto r = analyseFabric(*f);
  // Its HCAs carry the adapter's name, not "<host> <device>".
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].id, "ib-node-description-default");
  EXPECT_EQ(r.unnamed, 4);
}

// iblinkinfo as a lab printed it (tests/fixtures/fabric/README.md): seven
// one-port hosts and one two-port host on an 18-port QDR switch, the CA
// blocks on both sides of the switch's. Every switch port is read, cabled or
// Down/Polling, and the CAs' port lines (one CA has two) are read past.
TEST(RealCaptures, IblinkinfoOfAOneSwitchLab) {
  auto c = readIblinkinfoFile(kFixtures + "iblinkinfo/cc-rdma-test-qdr.out");
  ASSERT_TRUE(c) << c.error().message;
  ASSERT_EQ(c->ports.size(), 18u);
  std::vector<int> down;
  for (size_t i = 0; i < c->ports.size(); ++i) {
    const auto& p = c->ports[i];
    EXPECT_EQ(p.guid, "2c902004b2678");
    EXPECT_EQ(p.description, "Infiniscale-IV Mellanox Technologies");
    EXPECT_EQ(p.port, static_cast<int>(i) + 1);
    EXPECT_EQ(p.line, 17 + static_cast<long>(i));
    if (p.state == "Down") {
      EXPECT_EQ(p.phys, "Polling");
      down.push_back(p.port);
    } else {
      EXPECT_EQ(p.state, "Active");
      EXPECT_EQ(p.phys, "LinkUp");
    }
  }
  EXPECT_EQ(down, (std::vector<int>{8, 10, 11, 12, 13, 15, 16, 17, 18}));
}

// ibsim's own examples (Debian's ibsim-utils) are net files in the same
// format: each must read, where the package is installed.
TEST(RealCaptures, IbsimNetExamples) {
  const std::string dir = "/usr/share/doc/ibsim-utils/net-examples/";
  std::ifstream probe(dir + "net");
  if (!probe) GTEST_SKIP() << "ibsim-utils not installed (" << dir << ")";
  for (const char* name : {"net", "net.1", "net.2sw2path", "net.2sw2path4hca", "net.2sw2path4hca2port"}) {
    auto f = readIbnetdiscoverFile(dir + name);
    EXPECT_TRUE(f) << name << ": " << f.error().message;
  }
}

}  // namespace
}  // namespace railkit::fabric
