// iblinkinfo's output and fabric-port-down: a switch port Down where the
// same port of the other switches of its tier is Active.
#include "fabric/iblinkinfo.h"

#include <gtest/gtest.h>

#include <string>

#include "fabric/ibnetdiscover.h"
#include "fabric/report.h"
#include "fabric_text.h"

namespace railkit::fabric {
namespace {

using railkit::testing::RailFabricText;

// Lines as Debian's iblinkinfo (infiniband-diags 44.0) printed them against ibsim.
const char* const kLeaf =
    "CA: node004 mlx5_1:\n"
    "      0x000000000010000f     27    1[  ] ==( 4X          10.0 Gbps Active/  LinkUp)==>       3    4[  ] "
    "\"leaf-r1\" (Could be 12X )\n"
    "Switch: 0x0000000000200001 leaf-r1:\n"
    "           3    1[  ] ==( 4X          10.0 Gbps Active/  LinkUp)==>       6    1[  ] \"node001 mlx5_1\" "
    "(Could be 12X )\n"
    "           3    2[  ] ==(                Down/ Polling)==>             [  ] \"\" ( )\n";

TEST(Iblinkinfo, ReadsSwitchPortsAndSkipsCas) {
  auto c = parseIblinkinfo(kLeaf, "links.txt");
  ASSERT_TRUE(c) << c.error().message;
  ASSERT_EQ(c->ports.size(), 2u);
  EXPECT_EQ(c->ports[0].guid, "200001");
  EXPECT_EQ(c->ports[0].description, "leaf-r1");
  EXPECT_EQ(c->ports[0].port, 1);
  EXPECT_EQ(c->ports[0].state, "Active");
  EXPECT_EQ(c->ports[0].phys, "LinkUp");
  EXPECT_EQ(c->ports[1].state, "Down");
  EXPECT_EQ(c->ports[1].phys, "Polling");
  EXPECT_EQ(c->ports[1].line, 5);
  EXPECT_EQ(normaliseGuid("S-0000000000200001"), "200001");
}

TEST(Iblinkinfo, RefusesWhatIsNotIblinkinfo) {
  auto junk = parseIblinkinfo("Switch: 0x1 leaf:\nhello\n", "l.txt");
  ASSERT_FALSE(junk);
  EXPECT_EQ(junk.error().message.rfind("l.txt:2: expected iblinkinfo's", 0), 0u) << junk.error().message;
  EXPECT_FALSE(parseIblinkinfo("", "l.txt"));
  EXPECT_FALSE(parseIblinkinfo("Switch: leaf\n", "l.txt"));
}

// Every leaf port of a RailFabricText as iblinkinfo prints it, `down` Down.
std::string linksOf(int nodes, int rails, int spines, int down_leaf, int down_port) {
  std::string out;
  for (int l = 0; l < rails; ++l) {
    out += "Switch: 0x" + RailFabricText::guid('S', 1, l).substr(2) + " leaf-r" + std::to_string(l) + ":\n";
    for (int p = 1; p <= nodes + spines + 4; ++p) {
      bool cabled = p <= nodes + spines && !(l == down_leaf && p == down_port);
      out += "  " + std::to_string(l + 1) + "    " + std::to_string(p) + "[  ] ==(" +
             (cabled ? " 4X 106.25 Gbps Active/  LinkUp" : "                Down/ Polling") +
             ")==>  [  ] \"\" ( )\n";
    }
  }
  return out;
}

TEST(PortDown, ADarkPortAmongActivePeersIsNamed) {
  RailFabricText t(8, 4, 2);
  t.unplug(4, 2);
  auto f = parseIbnetdiscover(t.text(), "fabric.txt");
  ASSERT_TRUE(f);
  auto links = parseIblinkinfo(linksOf(8, 4, 2, 2, 5), "links.txt");
  ASSERT_TRUE(links) << links.error().message;
  auto r = analyseFabric(*f, {}, {}, nullptr, &*links);
  ASSERT_EQ(r.findings.size(), 2u);
  EXPECT_EQ(r.findings[0].id, "fabric-node-ports-missing");
  EXPECT_EQ(r.findings[1].id, "fabric-port-down");
  EXPECT_EQ(r.findings[1].subject, "leaf-r2 port 5");
  EXPECT_EQ(
      r.findings[1].message,
      "leaf-r2 port 5 is Down (Polling); port 5 is Active on 3 of the other 3 leaves, where it is cabled to "
      "node005");
  EXPECT_EQ(r.findings[1].evidence[0].source, "links.txt");
}

TEST(PortDown, SparePortsDownEverywhereAreNotReported) {
  auto f = parseIbnetdiscover(RailFabricText(8, 4, 2).text(), "fabric.txt");
  ASSERT_TRUE(f);
  auto links = parseIblinkinfo(linksOf(8, 4, 2, -1, -1), "links.txt");
  ASSERT_TRUE(links);
  EXPECT_TRUE(analyseFabric(*f, {}, {}, nullptr, &*links).findings.empty());
}

}  // namespace
}  // namespace railkit::fabric
