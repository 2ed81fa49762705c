// socket_util at scale. LineReader over a socketpair: several lines in one
// segment come out one by one, a line split over writes is joined, a line
// past the limit and a closed peer are errors, and the deadline holds when
// nothing comes. ensureFdLimit: raises the soft limit, refuses past the hard.
#include "bench/socket_util.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

namespace railkit::bench {
namespace {

struct Pair {
  int fds[2] = {-1, -1};
  Pair() { EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0); }
  ~Pair() {
    closeFd(fds[0]);
    closeFd(fds[1]);
  }
  void write(const std::string& s) const { ASSERT_TRUE(sendAll(fds[1], s.data(), s.size(), later())); }
  static Clock::time_point later() { return Clock::now() + std::chrono::seconds(5); }
};

TEST(LineReader, LinesOfOneSegmentComeOutInOrder) {
  Pair p;
  p.write("one\ntwo\n\nthree\n");
  LineReader r(p.fds[0]);
  EXPECT_EQ(r.readLine(64, Pair::later()).value(), "one");
  EXPECT_EQ(r.readLine(64, Pair::later()).value(), "two");
  EXPECT_EQ(r.readLine(64, Pair::later()).value(), "");
  EXPECT_EQ(r.readLine(64, Pair::later()).value(), "three");
}

TEST(LineReader, JoinsALineSplitOverWritesAndKeepsTheRest) {
  Pair p;
  LineReader r(p.fds[0]);
  std::string big(200000, 'x');  // over one read block
  p.write(big.substr(0, 70000));
  p.write(big.substr(70000) + "\nnext");
  EXPECT_EQ(r.readLine(300000, Pair::later()).value(), big);
  p.write(" line\n");
  EXPECT_EQ(r.readLine(64, Pair::later()).value(), "next line");
}

TEST(LineReader, RefusesALineAtTheLimit) {
  Pair p;
  p.write("abcdefgh\n");
  LineReader r(p.fds[0]);
  auto line = r.readLine(8, Pair::later());
  ASSERT_FALSE(line);
  EXPECT_EQ(line.error().code, ErrorCode::kInvalidInput);
  Pair q;
  q.write("abcdefg\n");
  EXPECT_EQ(LineReader(q.fds[0]).readLine(8, Pair::later()).value(), "abcdefg");
}

TEST(LineReader, ClosedPeerAndDeadlineAreErrors) {
  Pair p;
  LineReader r(p.fds[0]);
  auto none = r.readLine(64, Clock::now() + std::chrono::milliseconds(50));
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().code, ErrorCode::kTimeout);
  p.write("half");
  ::shutdown(p.fds[1], SHUT_WR);
  auto cut = r.readLine(64, Pair::later());
  ASSERT_FALSE(cut);
  EXPECT_EQ(cut.error().code, ErrorCode::kPeerLost);
}

// Each test runs in its own process (gtest_discover_tests), so the lowered
// limit stays in this one.
TEST(FdLimit, RaisesTheSoftLimitAndRefusesPastTheHard) {
  rlimit lim{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &lim), 0);
  if (lim.rlim_max != RLIM_INFINITY && lim.rlim_max < 512) GTEST_SKIP() << "hard open-file limit below 512";
  rlimit low = lim;
  low.rlim_cur = 128;
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &low), 0);
  EXPECT_TRUE(ensureFdLimit(100));  // already enough: left alone
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &low), 0);
  EXPECT_EQ(low.rlim_cur, 128u);
  EXPECT_TRUE(ensureFdLimit(400));
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &low), 0);
  EXPECT_EQ(low.rlim_cur, 400u);
  if (lim.rlim_max != RLIM_INFINITY) {
    auto s = ensureFdLimit(static_cast<std::size_t>(lim.rlim_max) + 1);
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().code, ErrorCode::kUsage);
    EXPECT_NE(s.error().message.find("ulimit -Hn"), std::string::npos) << s.error().message;
  }
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &lim), 0);
}

}  // namespace
}  // namespace railkit::bench
