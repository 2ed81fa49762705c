// End-to-end: the real binary, forked ranks on lo, every collective in one
// launch per rank count; the env bootstrap with a stranger on the
// rendezvous port; a peer that never arrives.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "support/bench_output.h"
#include "support/process.h"
#include "support/test_support.h"

namespace {

using railkit::testing::countRows;
using railkit::testing::ProcessResult;
using railkit::testing::runShell;

// The whole run in `out`, stderr included; a deadline just inside ctest's 180 s per case.
ProcessResult runCommand(const std::string& cmd) {
  return runShell(cmd, 170, railkit::testing::Stderr::kMerged);
}

bool sanitizer() {
  return railkit::testing::sanitizerBuild();
}

class BenchLocal : public ::testing::TestWithParam<int> {};

TEST_P(BenchLocal, EveryOpEveryTypeCorrect) {
  int n = GetParam();
  std::string max = sanitizer() ? "40000" : "3000000";
  for (const char* spec :
       {"-d float -o sum", "-d int8 -o max", "-d uint64 -o prod", "-d double -o min -r 1",
        "-d int32 -o sum -r 2", "-d uint8 -o min", "-d uint32 -o max", "-d int64 -o sum"}) {
    std::string root_spec = spec;
    // A root this rank count lacks becomes the last rank.
    if (auto at = root_spec.find("-r "); at != std::string::npos && root_spec[at + 3] - '0' >= n) {
      root_spec.replace(at, 4, "-r " + std::to_string(n - 1));
    }
    ProcessResult r = runCommand(::railkit::testing::railkitBinary() + " bench all --local " +
                                 std::to_string(n) + " -b 7 -e " + max + " -f 13 -n 2 -w 1 " + root_spec);
    ASSERT_EQ(r.status, 0) << spec << "\n" << r.out;
    int nonzero = 0;
    int rows = countRows(r.out, &nonzero);
    // 7 ops x sizes 7, 91, 1183, ... up to max (odd: not divisible by n): 4 sizes to 40000, 6 to 3000000.
    EXPECT_EQ(rows, 7 * (sanitizer() ? 4 : 6)) << r.out;
    EXPECT_EQ(nonzero, 0) << r.out;
    EXPECT_NE(r.out.find("# Out of bounds values : 0 OK"), std::string::npos);
  }
}

// 1 rank: every op still runs (sendrecv and alltoall to itself), as nccl-tests do on one GPU.
INSTANTIATE_TEST_SUITE_P(Ranks, BenchLocal, ::testing::Values(1, 2, 3));

TEST(BenchLocal, JsonHasEveryRow) {
  ProcessResult r =
      runCommand(::railkit::testing::railkitBinary() + " bench all_gather --local 2 -b 1K -e 4K --json");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("\"busbw_gbs\""), std::string::npos);
  EXPECT_NE(r.out.find("\"data_interface\": \"lo\""), std::string::npos);
  EXPECT_EQ(r.out.find("# Avg bus"), std::string::npos);  // --json replaces the text
}

// "# Avg bus bandwidth" is nccl-tests' mean over every busbw it printed, out-of-place
// and in-place (the DRANET write-up's 15.5188 is that mean of its table).
TEST(BenchLocal, AvgBusBandwidthAveragesBothPlacements) {
  ProcessResult r = runCommand(::railkit::testing::railkitBinary() +
                               " bench all_reduce --local 2 -b 64K -e 4M -f 4 -n 3 -w 1");
  ASSERT_EQ(r.status, 0) << r.out;
  double sum = 0;
  int values = 0;
  for (const auto& row : railkit::testing::parseRows(r.out)) {
    sum += row.busbw[0] + row.busbw[1];
    values += 2;
  }
  ASSERT_EQ(values, 2 * 4) << r.out;
  auto at = r.out.find("# Avg bus bandwidth    : ");
  ASSERT_NE(at, std::string::npos) << r.out;
  double printed = std::atof(r.out.c_str() + at + 25);
  // Each printed busbw is rounded to 0.01, so the mean of them is within 0.005.
  EXPECT_NEAR(printed, sum / values, 0.0051) << r.out;
}

TEST(BenchLocal, MissedExpectationExitsOne) {
  ProcessResult r = runCommand(::railkit::testing::railkitBinary() +
                               " bench all_reduce --local 2 -b 1K -e 1K --expect-busbw 100000");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("below the expected"), std::string::npos) << r.out;
}

TEST(BenchEnv, UsageWithoutLauncher) {
  ProcessResult r = runCommand("env -u RANK -u WORLD_SIZE -u OMPI_COMM_WORLD_SIZE -u PMI_SIZE " +
                               ::railkit::testing::railkitBinary() + " bench all_reduce");
  EXPECT_EQ(r.status, 2) << r.out;
}

int freePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa);
  socklen_t len = sizeof sa;
  getsockname(fd, reinterpret_cast<sockaddr*>(&sa), &len);
  close(fd);
  return ntohs(sa.sin_port);
}

std::string envRank(int rank, int size, int port) {
  return "RANK=" + std::to_string(rank) + " WORLD_SIZE=" + std::to_string(size) +
         " MASTER_ADDR=127.0.0.1 MASTER_PORT=" + std::to_string(port) + " " +
         ::railkit::testing::railkitBinary() +
         " bench all_reduce --ctrl-if lo --data-if lo -b 1K -e 64K --bootstrap-timeout 20 --stall-timeout 10";
}

// Connects to 127.0.0.1:port, retrying until `deadline` (rank 0 may not
// listen yet); -1 when it never accepted.
int connectWhenListening(int port, std::chrono::steady_clock::time_point deadline) {
  while (std::chrono::steady_clock::now() < deadline) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_port = htons(static_cast<uint16_t>(port));
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) == 0) return fd;
    close(fd);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return -1;
}

// Two strangers reach rank 0's rendezvous before rank 1 does: one sends
// garbage, one a wrong job id. Rank 0 must say it dropped each, and the run
// must complete with correct results.
TEST(BenchEnv, ForeignClientOnRendezvousIsIgnored) {
  int port = freePort();
  ProcessResult rank1, rank0;
  std::thread t0([&] { rank0 = runCommand(envRank(0, 2, port)); });
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  for (const char* junk : {"GET / HTTP/1.0\r\n\r\n", "RAILKIT-RDV 1 other-job 1 2 -\n"}) {
    int fd = connectWhenListening(port, deadline);
    EXPECT_GE(fd, 0) << "rank 0 never listened on port " << port;
    if (fd < 0) break;
    ssize_t ignored = write(fd, junk, strlen(junk));
    (void)ignored;
    close(fd);
  }
  std::thread t1([&] { rank1 = runCommand(envRank(1, 2, port)); });
  t0.join();
  t1.join();
  EXPECT_EQ(rank0.status, 0) << rank0.out;
  EXPECT_EQ(rank1.status, 0) << rank1.out;
  int nonzero = 0;
  EXPECT_GT(countRows(rank0.out, &nonzero), 0) << rank0.out;
  EXPECT_EQ(nonzero, 0);
  size_t drops = 0;
  for (size_t at = 0; (at = rank0.out.find("rendezvous: dropped 127.0.0.1", at)) != std::string::npos; ++at)
    ++drops;
  EXPECT_EQ(drops, 2u) << "rank 0 must report each stranger it dropped:\n" << rank0.out;
}

TEST(BenchEnv, PeerThatNeverArrivesExitsThree) {
  int port = freePort();
  auto start = std::chrono::steady_clock::now();
  ProcessResult r =
      runCommand("RANK=0 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=" + std::to_string(port) + " " +
                 ::railkit::testing::railkitBinary() +
                 " bench all_reduce --ctrl-if lo --data-if lo --bootstrap-timeout 2");
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.status, 3) << r.out;
  EXPECT_LT(secs, 15);
  EXPECT_NE(r.out.find("rank(s) 1"), std::string::npos) << r.out;
}

}  // namespace

namespace {

TEST(BenchLocal, P2pPrintsPerftestTables) {
  ProcessResult r = runCommand(::railkit::testing::railkitBinary() + " bench p2p --local 2 -e 64K -n 1");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find(" #bytes     #iterations    BW peak[Gb/sec]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n 65536 "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("t_typical[usec]"), std::string::npos) << r.out;
}

}  // namespace
