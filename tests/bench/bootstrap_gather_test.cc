// The env bootstrap's collective calls on 127.0.0.1, ranks as threads:
// gather reaches rank 0 only (blobs far past the allgather limit), barrier
// and allgather keep working after it in any order, and a blob over the
// gather limit is refused before anything is sent.
#include <gtest/gtest.h>

#include <future>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "bench/bootstrap.h"
#include "bench/socket_util.h"
#include "support/event.h"

namespace railkit::bench {
namespace {

// (GCC 12 warns falsely on "x" + std::to_string(r): -Wrestrict.)
std::string tag(char c, int rank) {
  return std::string(1, c).append(std::to_string(rank));
}

struct RankResult {
  std::vector<std::string> first, gathered, after;
};

Result<RankResult> runRank(BootstrapOptions o, int listener) {
  if (o.rank == 0) o.inherited_listener = listener;
  auto boot = makeTcpBootstrap(o);
  if (!boot) return tl::unexpected(boot.error());
  Bootstrap& b = **boot;
  RankResult out;
  auto first = b.allgather(tag('a', o.rank));
  if (!first) return tl::unexpected(first.error());
  out.first = *first;
  if (auto s = b.barrier(); !s) return tl::unexpected(s.error());
  // Rank 2's blob is 16 times the allgather limit.
  std::string mine = o.rank == 2 ? std::string(16 * Bootstrap::kMaxBlobBytes, 'x') : tag('g', o.rank);
  auto gathered = b.gather(mine);
  if (!gathered) return tl::unexpected(gathered.error());
  out.gathered = *gathered;
  for (int i = 0; i < 3; ++i) {
    if (auto s = b.barrier(); !s) return tl::unexpected(s.error());
  }
  auto again = b.gather("");
  if (!again) return tl::unexpected(again.error());
  auto after = b.allgather(tag('z', o.rank));
  if (!after) return tl::unexpected(after.error());
  out.after = *after;
  return out;
}

// A job of `ranks` on 127.0.0.1 whose rank 0 serves on `port`.
BootstrapOptions onLoopback(int ranks, int port) {
  BootstrapOptions o;
  o.master_addr = o.control_address = "127.0.0.1";
  o.master_port = port;
  o.size = ranks;
  o.job_id = defaultJobId("127.0.0.1", port, ranks);
  o.timeout = std::chrono::seconds(60);
  return o;
}

TEST(BenchBootstrapGather, RankZeroGetsEveryBlobOthersNothing) {
  constexpr int kRanks = 5;
  int port = 0;
  auto listener = listenOn("127.0.0.1", 0, &port);
  ASSERT_TRUE(listener.has_value()) << listener.error().message;
  BootstrapOptions base = onLoopback(kRanks, port);
  std::vector<std::future<Result<RankResult>>> ranks;
  for (int r = 0; r < kRanks; ++r) {
    BootstrapOptions o = base;
    o.rank = r;
    ranks.push_back(std::async(std::launch::async, runRank, o, *listener));
  }
  for (int r = 0; r < kRanks; ++r) {
    auto got = ranks[static_cast<std::size_t>(r)].get();
    ASSERT_TRUE(got.has_value()) << "rank " << r << ": " << got.error().message;
    ASSERT_EQ(got->first.size(), static_cast<std::size_t>(kRanks));
    EXPECT_EQ(got->first[3], "a3");
    ASSERT_EQ(got->after.size(), static_cast<std::size_t>(kRanks));
    EXPECT_EQ(got->after[4], "z4");
    if (r != 0) {
      EXPECT_TRUE(got->gathered.empty()) << "rank " << r;
      continue;
    }
    ASSERT_EQ(got->gathered.size(), static_cast<std::size_t>(kRanks));
    EXPECT_EQ(got->gathered[0], "g0");
    EXPECT_EQ(got->gathered[1], "g1");
    EXPECT_EQ(got->gathered[2], std::string(16 * Bootstrap::kMaxBlobBytes, 'x'));
    EXPECT_EQ(got->gathered[4], "g4");
  }
}

// A rank that gives up (here: between two barriers, as one that loses its
// pair does) sends its reason while rank 0 waits in a barrier: rank 0 must
// name the rank and the reason, not trip over the line's length.
Status abortingRank(BootstrapOptions o, int listener, const std::string& why) {
  if (o.rank == 0) o.inherited_listener = listener;
  auto boot = makeTcpBootstrap(o);
  if (!boot) return tl::unexpected(boot.error());
  if (auto s = (*boot)->barrier(); !s) return s;
  if (o.rank == 2) {
    (*boot)->abort(why);
    return okStatus();
  }
  return (*boot)->barrier();
}

TEST(BenchBootstrapGather, BarrierNamesARankThatGaveUp) {
  constexpr int kRanks = 3;
  int port = 0;
  auto listener = listenOn("127.0.0.1", 0, &port);
  ASSERT_TRUE(listener.has_value()) << listener.error().message;
  BootstrapOptions base = onLoopback(kRanks, port);
  const std::string why = "pairs round 7 with rank 1: " + std::string(300, 'w');
  std::vector<std::future<Status>> ranks;
  for (int r = 0; r < kRanks; ++r) {
    BootstrapOptions o = base;
    o.rank = r;
    ranks.push_back(std::async(std::launch::async, abortingRank, o, *listener, why));
  }
  auto zero = ranks[0].get();
  ASSERT_FALSE(zero.has_value());
  EXPECT_EQ(zero.error().code, ErrorCode::kPeerLost);
  EXPECT_NE(zero.error().message.find("rank 2 gave up: " + why), std::string::npos) << zero.error().message;
  EXPECT_FALSE(ranks[1].get().has_value());  // rank 0 left without ending the barrier
  EXPECT_TRUE(ranks[2].get().has_value());
}

// A collective call stuck on a rank makes rank 0 name the ranks it waits for.
TEST(BenchBootstrapGather, RankZeroNamesTheRanksItWaitsFor) {
  constexpr int kRanks = 3;
  int port = 0;
  auto listener = listenOn("127.0.0.1", 0, &port);
  ASSERT_TRUE(listener.has_value()) << listener.error().message;
  std::mutex mu;
  std::vector<std::string> notices;
  testing::Event noticed;
  BootstrapOptions base = onLoopback(kRanks, port);
  base.waiting_notice = std::chrono::milliseconds(200);
  base.notice = [&](const std::string& line) {
    {
      std::lock_guard<std::mutex> lock(mu);
      notices.push_back(line);
    }
    noticed.set();
  };
  std::vector<std::future<Status>> ranks;
  for (int r = 0; r < kRanks; ++r) {
    BootstrapOptions o = base;
    o.rank = r;
    if (r == 0) o.inherited_listener = *listener;
    ranks.push_back(std::async(std::launch::async, [o, &noticed]() -> Status {
      auto boot = makeTcpBootstrap(o);
      if (!boot) return tl::unexpected(boot.error());
      if (auto s = (*boot)->barrier(); !s) return s;
      // Rank 2 is the slow node: it joins the second barrier only once rank
      // 0 has said whom it waits for (due 200 ms in; 3 s is over ten times).
      if (o.rank == 2 && !noticed.waitFor(std::chrono::seconds(3)))
        return makeError(ErrorCode::kTimeout, "rank 0 gave no waiting notice within 3 s");
      return (*boot)->barrier();
    }));
  }
  for (auto& f : ranks) {
    auto s = f.get();
    ASSERT_TRUE(s.has_value()) << s.error().message;
  }
  std::lock_guard<std::mutex> lock(mu);
  ASSERT_FALSE(notices.empty());
  EXPECT_EQ(notices.front(), "rank 0: waiting for 1 of 2 rank(s): 2");
}

TEST(BenchBootstrapGather, OversizedBlobIsRefusedLocally) {
  BootstrapOptions o;
  o.size = 1;
  auto boot = makeTcpBootstrap(o);
  ASSERT_TRUE(boot.has_value());
  auto r = (*boot)->gather(std::string(Bootstrap::kMaxGatherBytes + 1, 'x'));
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message.find("limit"), std::string::npos) << r.error().message;
  auto a = (*boot)->allgather(std::string(Bootstrap::kMaxBlobBytes + 1, 'x'));
  ASSERT_FALSE(a.has_value());
}

}  // namespace
}  // namespace railkit::bench
