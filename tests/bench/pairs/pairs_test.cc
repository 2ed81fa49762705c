// bench pairs: the round-robin schedule (every pair once, rounds disjoint),
// the median/outlier/suspect-node analysis, the matrix, and a real --local run.
#include "bench/pairs.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <nlohmann/json.hpp>
#include <set>

#include "support/bench_output.h"
#include "support/process.h"
#include "support/test_support.h"

using namespace railkit::bench;

TEST(PairsSchedule, EveryPairOnceRoundsDisjoint) {
  for (int n = 2; n <= 17; ++n) {
    auto rounds = roundRobinSchedule(n);
    EXPECT_EQ(static_cast<int>(rounds.size()), n % 2 == 0 ? n - 1 : n) << "n=" << n;
    std::set<std::pair<int, int>> seen;
    for (const auto& round : rounds) {
      std::set<int> busy;
      for (auto [a, b] : round) {
        EXPECT_LT(a, b);
        EXPECT_GE(a, 0);
        EXPECT_LT(b, n);
        EXPECT_TRUE(busy.insert(a).second) << "n=" << n << " rank " << a << " twice in a round";
        EXPECT_TRUE(busy.insert(b).second) << "n=" << n << " rank " << b << " twice in a round";
        EXPECT_TRUE(seen.emplace(a, b).second) << "n=" << n << " pair " << a << "-" << b << " twice";
      }
      // All ranks busy, except one bye per round for odd n.
      EXPECT_EQ(static_cast<int>(busy.size()), n % 2 == 0 ? n : n - 1) << "n=" << n;
    }
    EXPECT_EQ(static_cast<int>(seen.size()), n * (n - 1) / 2) << "n=" << n;
  }
  EXPECT_TRUE(roundRobinSchedule(1).empty());
  EXPECT_EQ(roundRobinSchedule(2), (std::vector<PairsRound>{{{0, 1}}}));
}

std::vector<PairLink> fullMesh(int n, double good, int bad_rank, double bad) {
  std::vector<PairLink> links;
  for (int a = 0; a < n; ++a) {
    for (int b = a + 1; b < n; ++b) {
      double bw = good + 0.01 * (a + b);  // a little spread
      if (a == bad_rank || b == bad_rank) bw = bad;
      links.push_back(PairLink{a, b, bw, 1000});
    }
  }
  return links;
}

TEST(PairsAnalysis, BadNodeIsTheSuspect) {
  auto an = analysePairs(5, fullMesh(5, 10.0, 3, 1.0), 0.8);
  EXPECT_NEAR(an.median_gbps, 10.015, 1e-9);  // (10.01 + 10.02) / 2 of 10 links
  EXPECT_NEAR(an.threshold_gbps, 0.8 * an.median_gbps, 1e-9);
  ASSERT_EQ(an.slow.size(), 4u);
  for (const auto& l : an.slow) EXPECT_TRUE(l.a == 3 || l.b == 3);
  ASSERT_EQ(an.suspects.size(), 1u);
  EXPECT_EQ(an.suspects[0].rank, 3);
  EXPECT_EQ(an.suspects[0].slow_links, 4);
  EXPECT_EQ(an.suspects[0].links, 4);
}

TEST(PairsAnalysis, BadCableIsOneLinkAndNoNode) {
  auto links = fullMesh(4, 10.0, -1, 0);
  links[4].gbps = 7.0;  // (1,3): 70% of the median
  auto an = analysePairs(4, links, 0.8);
  ASSERT_EQ(an.slow.size(), 1u);
  EXPECT_EQ(an.slow[0].a, 1);
  EXPECT_EQ(an.slow[0].b, 3);
  EXPECT_TRUE(an.suspects.empty());
  // 85% of the median is not slow at 0.8, but is at 0.9.
  links[4].gbps = 8.5;
  EXPECT_TRUE(analysePairs(4, links, 0.8).slow.empty());
  EXPECT_EQ(analysePairs(4, links, 0.9).slow.size(), 1u);
}

TEST(PairsAnalysis, HealthyMeshHasNothingSlow) {
  auto an = analysePairs(6, fullMesh(6, 25.0, -1, 0), 0.8);
  EXPECT_TRUE(an.slow.empty());
  EXPECT_TRUE(an.suspects.empty());
  EXPECT_TRUE(analysePairs(2, {}, 0.8).slow.empty());
}

TEST(PairsMatrix, SymmetricWithDashesOnTheDiagonal) {
  std::vector<PairLink> links{{0, 1, 9.5, 1}, {0, 2, 1.25, 1}, {1, 2, 9.75, 1}};
  std::string m = formatPairsMatrix(3, {"r0 = a", "r1 = b", "r2 = c"}, links);
  EXPECT_EQ(m,
            "#  Gb/s         r0       r1       r2\n"
            "#    r0          -     9.50     1.25   r0 = a\n"
            "#    r1       9.50        -     9.75   r1 = b\n"
            "#    r2       1.25     9.75        -   r2 = c\n");
}

TEST(PairsCli, LocalRunFourRanksJson) {
  std::string cmd =
      railkit::testing::railkitBinary() + " bench pairs --local 4 -e 256K -n 4 -w 1 --json 2>&1";
  auto run = railkit::testing::runShell(cmd, 170);
  int rc = run.status;
  const std::string& out = run.out;
  // On a loaded 2-core machine lo links may differ by more than 20%: then the
  // run names them and exits 1. Either way the document is complete.
  ASSERT_TRUE(rc == 0 || rc == 1) << out;
  auto start = out.find('{');
  ASSERT_NE(start, std::string::npos) << out;
  auto doc = nlohmann::json::parse(out.substr(start, out.rfind('}') - start + 1), nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << out;
  EXPECT_EQ(doc["op"], "pairs");
  auto& pairs = doc["pairs"];
  EXPECT_EQ(pairs["size_bytes"], 262144);
  EXPECT_EQ(pairs["rounds"].size(), 3u);
  ASSERT_EQ(pairs["links"].size(), 6u);
  for (const auto& l : pairs["links"]) EXPECT_GT(l["bw_gbps"].get<double>(), 0) << l.dump();
  EXPECT_EQ(rc == 1, !pairs["slow_links"].empty()) << out;
}

TEST(PairsCli, LocalRunThreeRanksOneWayHasAByeEachRound) {
  std::string cmd = railkit::testing::railkitBinary() +
                    " bench pairs --local 3 --one-way -e 64K -n 3 -w 1 --json 2>/dev/null";
  auto run = railkit::testing::runShell(cmd, 170);
  int rc = run.status;
  const std::string& out = run.out;
  ASSERT_TRUE(rc == 0 || rc == 1) << out;
  auto doc = nlohmann::json::parse(out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << out;
  auto& pairs = doc["pairs"];
  EXPECT_EQ(pairs["direction"], "one-way");
  ASSERT_EQ(pairs["rounds"].size(), 3u);
  for (const auto& round : pairs["rounds"]) EXPECT_EQ(round.size(), 1u);  // 3 ranks: one pair, one bye
  EXPECT_EQ(pairs["links"].size(), 3u);
  // Too few ranks is a usage error.
  EXPECT_EQ(railkit::testing::runRailkit("bench pairs --local 1").status, 2);
}
