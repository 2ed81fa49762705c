// perfquery's output and fabric-port-errors: a counter over its threshold
// (one read), a counter that rose (two reads), each on the switch port and
// cable ibnetdiscover's LIDs place it on.
#include "fabric/perfquery.h"

#include <gtest/gtest.h>

#include <string>

#include "fabric/ibnetdiscover.h"
#include "fabric/report.h"

namespace railkit::fabric {
namespace {

// A block as Debian's perfquery (infiniband-diags 44.0) printed it against ibsim.
std::string block(unsigned lid, int port, int symbol_errors, int link_downed) {
  return "# Port counters: Lid " + std::to_string(lid) + " port " + std::to_string(port) +
         " (CapMask: 0x1300)\n"
         "PortSelect:......................" +
         std::to_string(port) +
         "\nCounterSelect:...................0x0000\n"
         "SymbolErrorCounter:.............." +
         std::to_string(symbol_errors) +
         "\nLinkErrorRecoveryCounter:........0\n"
         "LinkDownedCounter:..............." +
         std::to_string(link_downed) +
         "\nPortRcvErrors:...................0\n"
         "PortXmitDiscards:................0\n"
         "ExcessiveBufferOverrunErrors:....0\n"
         "PortXmitData:....................648\n";
}

// leaf-r1 (lid 3) port 2 is cabled to node002 mlx5_1, whose port has lid 14.
const char* const kFabric =
    "Switch\t8 \"S-0000000000200001\"\t\t# \"leaf-r1\" base port 0 lid 3 lmc 0\n"
    "[2]\t\"H-0000000000100006\"[1](100007) \t\t# \"node002 mlx5_1\" lid 14 4xQDR\n"
    "\n"
    "Ca\t1 \"H-0000000000100006\"\t\t# \"node002 mlx5_1\"\n"
    "[1](100007) \t\"S-0000000000200001\"[2]\t\t# lid 14 lmc 0 \"leaf-r1\" lid 3 4xQDR\n";

FabricReport analyse(const std::vector<std::string>& reads) {
  auto f = parseIbnetdiscover(kFabric, "fabric.txt");
  EXPECT_TRUE(f) << f.error().message;
  std::vector<CounterCapture> counters;
  for (std::size_t i = 0; i < reads.size(); ++i) {
    auto c = parsePerfquery(reads[i], "read" + std::to_string(i + 1) + ".txt");
    EXPECT_TRUE(c) << c.error().message;
    if (c) counters.push_back(*c);
  }
  return analyseFabric(*f, {}, counters);
}

TEST(Perfquery, ReadsBlocksAndTheLidsOfTheFabric) {
  auto c = parsePerfquery("ibwarn: [1] sim_connect: attached\n" + block(3, 2, 42, 0) + block(14, 1, 0, 0),
                          "p.txt");
  ASSERT_TRUE(c) << c.error().message;
  ASSERT_EQ(c->ports.size(), 2u);
  EXPECT_EQ(c->ports[0].lid, 3u);
  EXPECT_EQ(c->ports[0].port, 2);
  EXPECT_EQ(c->ports[0].line, 2);
  EXPECT_EQ(c->ports[0].values.at("SymbolErrorCounter"), 42u);
  EXPECT_EQ(c->ports[0].values.at("CounterSelect"), 0u);
  EXPECT_EQ(c->ports[0].lines.at("SymbolErrorCounter"), 5);
  auto f = parseIbnetdiscover(kFabric, "fabric.txt");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->nodes[0].lid, 3u);
  EXPECT_EQ(f->nodes[1].ports[0].lid, 14u);
}

TEST(Perfquery, APortReadTwiceCountsWithItsLaterBlock) {
  auto c = parsePerfquery(block(3, 2, 0, 0) + block(14, 1, 0, 0) + block(3, 2, 5, 0), "p.txt");
  ASSERT_TRUE(c) << c.error().message;
  ASSERT_EQ(c->ports.size(), 2u);
  EXPECT_EQ(c->ports[0].values.at("SymbolErrorCounter"), 5u);
  EXPECT_EQ(c->ports[0].line, 21);
  // The same capture as both reads: nothing rose.
  auto r = analyse({block(3, 2, 0, 0) + block(3, 2, 50, 0), block(3, 2, 0, 0) + block(3, 2, 50, 0)});
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].severity, Severity::kWarning);
}

TEST(Perfquery, RefusesWhatIsNotPerfquery) {
  auto junk = parsePerfquery("SymbolErrorCounter:....1\n", "j.txt");
  ASSERT_FALSE(junk);
  EXPECT_EQ(
      junk.error().message,
      "j.txt:1: expected a perfquery block ('# Port counters: Lid L port P' then 'Name:....value' lines); "
      "found 'SymbolErrorCounter:....1'");
  auto value = parsePerfquery(block(3, 2, 0, 0) + "PortRcvErrors:....lots\n", "v.txt");
  ASSERT_FALSE(value);
  EXPECT_EQ(value.error().message, "v.txt:11: 'lots' is not a counter value");
  EXPECT_FALSE(parsePerfquery("", "e.txt"));
}

TEST(PortErrors, QuietCountersAreHealthy) {
  auto r = analyse({block(3, 2, 3, 0)});
  EXPECT_TRUE(r.findings.empty());
  r = analyse({block(3, 2, 3, 0), block(3, 2, 3, 0)});
  EXPECT_TRUE(r.findings.empty());
}

TEST(PortErrors, OverTheThresholdInOneReadIsAWarning) {
  auto r = analyse({block(3, 2, 42, 0)});
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].id, "fabric-port-errors");
  EXPECT_EQ(r.findings[0].severity, Severity::kWarning);
  EXPECT_EQ(r.findings[0].subject, "leaf-r1 port 2");
  EXPECT_EQ(r.findings[0].message,
            "leaf-r1 port 2 (cable to node002 mlx5_1 port 1): SymbolErrorCounter is 42, above 10");
  EXPECT_EQ(r.findings[0].evidence[0].line, 4);
}

TEST(PortErrors, RisingBetweenTwoReadsIsAnError) {
  auto r = analyse({block(3, 2, 0, 1) + block(14, 1, 0, 0), block(3, 2, 0, 3) + block(14, 1, 7, 0)});
  ASSERT_EQ(r.findings.size(), 2u);
  EXPECT_EQ(r.findings[0].severity, Severity::kError);
  EXPECT_EQ(
      r.findings[0].message,
      "leaf-r1 port 2 (cable to node002 mlx5_1 port 1): LinkDownedCounter rose from 1 to 3 between the two "
      "reads");
  EXPECT_EQ(r.findings[1].subject, "node002 mlx5_1 port 1");
  EXPECT_EQ(
      r.findings[1].message,
      "node002 mlx5_1 port 1 (cable to leaf-r1 port 2): SymbolErrorCounter rose from 0 to 7 between the two "
      "reads");
  EXPECT_EQ(r.errors, 2);
}

TEST(PortErrors, UnknownLidIsStillReported) {
  auto r = analyse({block(99, 4, 0, 50)});
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(
      r.findings[0].message,
      "lid 99 port 4 (a LID the ibnetdiscover output does not show): LinkDownedCounter is 50, above 10");
}

}  // namespace
}  // namespace railkit::fabric
