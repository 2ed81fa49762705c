// sminfo's output: the master it names, its failure, and the two checks that
// read it (no master; more than one master).
#include "fabric/sminfo.h"

#include <gtest/gtest.h>

#include "fabric/ibnetdiscover.h"
#include "fabric/report.h"
#include "fabric_text.h"

namespace railkit::fabric {
namespace {

// What Debian's sminfo (infiniband-diags 44.0) printed against ibsim, stdout
// and stderr together: with OpenSM running, and with none.
const char* const kMaster =
    "ibwarn: [3915] sim_connect: attached as client 0 at node \"leaf-r0\"\n"
    "sminfo: sm lid 1 sm guid 0x200000, activity count 218 priority 0 state 3 SMINFO_MASTER\n";
const char* const kNone =
    "ibwarn: [3894] sim_connect: attached as client 0 at node \"leaf-r0\"\n"
    "ibwarn: [3894] mad_rpc: _do_madrpc failed; dport (DR path slid 0; dlid 0; 0)\n"
    "sminfo: iberror: failed: query\n";

SmCapture capture(const char* text, const char* name) {
  auto c = parseSminfo(text, name);
  EXPECT_TRUE(c) << c.error().message;
  return c ? *c : SmCapture{};
}

TEST(Sminfo, ReadsTheMasterLine) {
  SmCapture c = capture(kMaster, "sm.txt");
  ASSERT_EQ(c.records.size(), 1u);
  EXPECT_EQ(c.records[0].line, 2);
  EXPECT_EQ(c.records[0].lid, 1u);
  EXPECT_EQ(c.records[0].guid, "0x200000");
  EXPECT_EQ(c.records[0].activity, 218u);
  EXPECT_EQ(c.records[0].state, kSmMaster);
  EXPECT_EQ(c.records[0].state_name, "SMINFO_MASTER");
  EXPECT_EQ(c.failure_line, 0);
}

TEST(Sminfo, ReadsTheFailure) {
  SmCapture c = capture(kNone, "none.txt");
  EXPECT_TRUE(c.records.empty());
  EXPECT_EQ(c.failure_line, 3);
  EXPECT_EQ(c.failure_text, "sminfo: iberror: failed: query");
}

TEST(Sminfo, RefusesWhatIsNotSminfo) {
  auto junk = parseSminfo("sminfo: sm lid 1\nhello\n", "x.txt");
  ASSERT_FALSE(junk);
  EXPECT_EQ(
      junk.error().message,
      "x.txt:1: expected sminfo's output ('sminfo: sm lid L sm guid G, activity count N priority P state S "
      "NAME', or its iberror line); found 'sminfo: sm lid 1'");
  auto empty = parseSminfo("\n\n", "e.txt");
  ASSERT_FALSE(empty);
  EXPECT_EQ(empty.error().message, "e.txt: empty: capture sminfo's errors too (sminfo > FILE 2>&1)");
  EXPECT_FALSE(parseSminfo(std::string("sminfo: sm\0", 11), "b"));
}

FabricReport withSm(const std::vector<SmCapture>& sm) {
  auto f = parseIbnetdiscover(railkit::testing::RailFabricText(8, 4, 2).text(), "fabric.txt");
  EXPECT_TRUE(f);
  return analyseFabric(*f, sm);
}

TEST(Sminfo, OneMasterIsHealthy) {
  auto r = withSm({capture(kMaster, "sm.txt")});
  EXPECT_TRUE(r.findings.empty());
  EXPECT_EQ(r.masters, std::vector<std::string>({"0x200000 (lid 1)"}));
}

TEST(Sminfo, NoSubnetManager) {
  auto r = withSm({capture(kNone, "none.txt")});
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].id, "ib-no-subnet-manager");
  EXPECT_EQ(r.findings[0].subject, "none.txt");
  EXPECT_EQ(
      r.findings[0].message,
      "sminfo found no subnet manager ('sminfo: iberror: failed: query'): ports stay INIT without LIDs or "
      "routes, and no queue pair reaches another node");
  EXPECT_EQ(r.findings[0].evidence[0].line, 3);
}

TEST(Sminfo, OnlyAStandbyAnswered) {
  auto r = withSm({capture(
      "sminfo: sm lid 4 sm guid 0x10, activity count 9 priority 1 state 2 SMINFO_STANDBY\n", "standby.txt")});
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(
      r.findings[0].message,
      "the subnet manager sminfo reached (guid 0x10, lid 4) is SMINFO_STANDBY, and no master answered: ports "
      "stay INIT without LIDs or routes, and no queue pair reaches another node");
}

TEST(Sminfo, TwoMasters) {
  auto other = capture(
      "sminfo: sm lid 1 sm guid 0x300000, activity count 77 priority 0 state 3 SMINFO_MASTER\n", "other.txt");
  auto r = withSm({capture(kMaster, "sm.txt"), other, capture(kMaster, "again.txt")});
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].id, "fabric-sm-masters");
  EXPECT_EQ(
      r.findings[0].message,
      "2 subnet managers are master: 0x200000 (lid 1, seen by sm.txt), 0x300000 (lid 1, seen by other.txt); "
      "each programs its own LIDs and routes, so the fabric is split or its SMs do not see each other");
  EXPECT_EQ(r.findings[0].evidence.size(), 3u);
}

}  // namespace
}  // namespace railkit::fabric
