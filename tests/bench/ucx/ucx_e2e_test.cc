// The real binary with --backend ucx on this host: every op and data type
// through forked ranks (UCX's default transports and UCX_TLS=tcp), the JSON
// names the backend, a UCX setting UCX rejects is a clean error, and under
// mpirun the mpi bootstrap carries the addresses.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "support/bench_output.h"
#include "support/process.h"
#include "support/test_support.h"

namespace {

using railkit::testing::countRows;
using railkit::testing::ProcessResult;

// Every UCX run is bounded: a wire-up that never completes fails its test.
ProcessResult runCommand(const std::string& cmd) {
  return railkit::testing::runShell(cmd, 120, railkit::testing::Stderr::kMerged);
}

bool sanitizer() {
  return railkit::testing::sanitizerBuild();
}

std::string rk() {
  return ::railkit::testing::railkitBinary();
}

struct UcxCase {
  int ranks;
  const char* tls;  // "" = UCX's own choice (shared memory between local ranks)
};

class BenchUcxLocal : public ::testing::TestWithParam<UcxCase> {};

TEST_P(BenchUcxLocal, EveryOpEveryTypeCorrect) {
  UcxCase c = GetParam();
  std::string env =
      std::string("env -u UCX_NET_DEVICES ") + (*c.tls ? std::string("UCX_TLS=") + c.tls : "-u UCX_TLS");
  std::string max = sanitizer() ? "40000" : "3000000";
  int sizes = 0;  // 7, 91, 1183, ...: odd, so never divisible by the rank count
  for (unsigned long long b = 7; b <= std::stoull(max); b *= 13) ++sizes;
  // Every type across the two transport choices (kept short: 2 cores).
  std::vector<const char*> specs{"-d float -o sum", "-d int8 -o max", "-d uint64 -o prod -r 1",
                                 "-d double -o min"};
  if (*c.tls) specs = {"-d int32 -o sum", "-d uint8 -o min", "-d uint32 -o max -r 1", "-d int64 -o prod"};
  for (const char* spec : specs) {
    ProcessResult r = runCommand(env + " " + rk() + " bench all --backend ucx --local " +
                                 std::to_string(c.ranks) + " -b 7 -e " + max + " -f 13 -n 2 -w 1 " + spec);
    ASSERT_EQ(r.status, 0) << spec << "\n" << r.out;
    int wrong = 0;
    EXPECT_EQ(countRows(r.out, &wrong), 7 * sizes) << r.out;
    EXPECT_EQ(wrong, 0) << r.out;
    EXPECT_NE(r.out.find("[cpu] ucx lo"), std::string::npos) << r.out;
  }
}

INSTANTIATE_TEST_SUITE_P(Ranks, BenchUcxLocal,
                         ::testing::Values(UcxCase{2, ""}, UcxCase{3, ""}, UcxCase{2, "tcp"},
                                           UcxCase{3, "tcp"}),
                         [](const auto& info) {
                           return std::to_string(info.param.ranks) + (*info.param.tls ? "_tcp" : "_default");
                         });

TEST(BenchUcx, JsonNamesTheBackend) {
  ProcessResult r =
      runCommand("env UCX_TLS=tcp " + rk() + " bench p2p --backend ucx --local 2 -b 1K -e 64K --json");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("\"backend\": \"ucx\""), std::string::npos) << r.out;
}

TEST(BenchUcx, RejectedSettingIsAnErrorNotAHang) {
  ProcessResult r = runCommand("env UCX_TLS=no_such_transport " + rk() +
                               " bench all_reduce --backend ucx --local 2 -b 1K -e 1K --stall-timeout 5");
  EXPECT_GE(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("UCX_TLS=no_such_transport"), std::string::npos) << r.out;
}

TEST(BenchUcx, UnderMpirunTheMpiBootstrapCarriesAddresses) {
#ifndef RAILKIT_TEST_HAVE_MPI
  GTEST_SKIP() << "railkit was built without MPI";
#endif
  if (runCommand("sh -c 'command -v mpirun'").status != 0)
    GTEST_SKIP() << "mpirun not installed (openmpi-bin)";
  std::string json = ::testing::TempDir() + "/bench_ucx_mpirun.json";
  for (const char* backend : {"ucx", "tcp"}) {
    // Under sanitizers, the slow unwinder walks through libmpi (no frame
    // pointers) so tests/bench/lsan.supp can match its allocations.
    const char* asan = std::getenv("ASAN_OPTIONS");
    std::string asan_env = asan ? std::string(" ASAN_OPTIONS=") + asan + ":fast_unwind_on_malloc=0" : "";
    ProcessResult r = runCommand(
        "env UCX_TLS=tcp OMPI_MCA_mca_base_component_disable_dlclose=1" + asan_env +
        " mpirun --allow-run-as-root --oversubscribe --bind-to none -np 3 --mca pml ob1 "
        "--mca btl tcp,self --mca btl_tcp_if_include lo --mca oob_tcp_if_include lo --mca osc ^ucx " +
        rk() + " bench all --backend " + backend +
        " --data-if lo --ctrl-if lo -b 7 -e 100000 -f 13 -n 2 -w 1 -d int64 --json-out " + json);
    ASSERT_EQ(r.status, 0) << backend << "\n" << r.out;
    int wrong = 0;
    EXPECT_EQ(countRows(r.out, &wrong), 7 * 4) << r.out;  // sizes 7, 91, 1183, 15379
    EXPECT_EQ(wrong, 0) << r.out;
    ProcessResult doc = runCommand("cat " + json);
    EXPECT_NE(doc.out.find("\"bootstrap\": \"mpi\""), std::string::npos) << doc.out;
    EXPECT_NE(doc.out.find("\"ranks\": 3"), std::string::npos) << doc.out;
  }
}

}  // namespace
