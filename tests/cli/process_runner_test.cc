// support/process.h, the one runner every test that starts a process uses:
// each promise it makes (separate or merged streams, the stdin feeder, the
// deadline that kills the whole group, a private TMPDIR, peak RSS, the
// shell-style status) on small real processes.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <string>

#include "support/process.h"

namespace railkit::testing {
namespace {

TEST(ProcessRunner, StdoutAndStderrApartAndTheExitCode) {
  auto r = runShell("echo out; echo err >&2; exit 3");
  EXPECT_EQ(r.out, "out\n");
  EXPECT_EQ(r.err, "err\n");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.status, 3);
  EXPECT_FALSE(r.timed_out);
}

TEST(ProcessRunner, MergedStreamsKeepTheirOrder) {
  auto r = runShell("echo one; echo two >&2; echo three", 60, Stderr::kMerged);
  EXPECT_EQ(r.out, "one\ntwo\nthree\n");
  EXPECT_EQ(r.err, "");
}

TEST(ProcessRunner, ASignalIsReportedAsAShellWould) {
  auto r = runShell("kill -TERM $$");
  EXPECT_EQ(r.signal, SIGTERM);
  EXPECT_EQ(r.status, 128 + SIGTERM);
}

TEST(ProcessRunner, StdinTextAndAFeeder) {
  auto text = runProcess(ProcessSpec({"cat"}).withInput("abc\n"));
  EXPECT_EQ(text.out, "abc\n");
  // 4 MiB: far more than a pipe holds, so the feeder and the reader overlap.
  auto fed = runProcess(ProcessSpec({"wc", "-c"}).withFeed([](int fd) {
    std::string block(1 << 20, 'x');
    for (int i = 0; i < 4; ++i) Process::writeAll(fd, block);
  }));
  EXPECT_EQ(fed.status, 0) << fed.err;
  EXPECT_EQ(std::stoul(fed.out), 4ul << 20) << fed.out;
  // Without input the child reads /dev/null, not the test's stdin.
  EXPECT_EQ(runProcess(ProcessSpec({"cat"})).out, "");
}

// The shell's background child keeps stdout open: only killing the whole
// process group ends the run at the deadline.
TEST(ProcessRunner, TheDeadlineKillsTheGroupAndSaysSo) {
  auto start = std::chrono::steady_clock::now();
  auto r = runProcess(
      ProcessSpec({"sh", "-c", "sleep 60 & sleep 60"}).withTimeout(std::chrono::milliseconds(300)));
  auto took = std::chrono::steady_clock::now() - start;
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.status, 124);
  EXPECT_EQ(r.signal, SIGKILL);
  EXPECT_GE(took, std::chrono::milliseconds(300));
  EXPECT_LT(took, std::chrono::seconds(10));
}

TEST(ProcessRunner, APrivateTmpdirReportsWhatWasLeftAndGoes) {
  auto r =
      runProcess(ProcessSpec({"sh", "-c", "echo \"$TMPDIR\"; touch \"$TMPDIR/left\""}).withPrivateTmpdir());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.tmp_left, std::vector<std::string>{"left"});
  std::string dir = r.out.substr(0, r.out.find('\n'));
  EXPECT_NE(dir, "");
  EXPECT_FALSE(std::filesystem::exists(dir)) << dir;
  auto env = runProcess(ProcessSpec({"sh", "-c", "printf %s \"$RK_PROBE\""}).withEnv("RK_PROBE", "a b"));
  EXPECT_EQ(env.out, "a b");
}

TEST(ProcessRunner, PeakRssIsTheChilds) {
  auto small = runProcess(ProcessSpec({"true"}));
  // A 64 MiB shell variable.
  auto big = runShell("x=$(head -c 67108864 /dev/zero | tr '\\0' a); echo ${#x}");
  ASSERT_EQ(big.status, 0) << big.err;
  EXPECT_EQ(big.out, "67108864\n");
  EXPECT_GT(big.peak_rss_kib, 64 * 1024);
  EXPECT_GT(small.peak_rss_kib, 0);
#ifndef RAILKIT_SANITIZED
  // A child's ru_maxrss counts its forked copy of the parent before exec:
  // under ASan that copy alone is ~60 MiB of shadow and runtime.
  EXPECT_LT(small.peak_rss_kib, 32 * 1024);
#endif
}

TEST(ProcessRunner, AProgramThatCannotStartIs127) {
  auto r = runProcess(ProcessSpec({"/nonexistent/railkit-no-such-program"}));
  EXPECT_EQ(r.status, 127);
}

}  // namespace
}  // namespace railkit::testing
