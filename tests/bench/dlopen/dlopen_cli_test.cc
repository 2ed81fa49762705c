// `railkit bench` with --ucx-lib / --mpi-lib (and RAILKIT_UCX_LIB /
// RAILKIT_MPI_LIB) pointing at FAKE libraries: a broken or refused library is
// one line on stderr and exit 2, with --local N probed once before the fork;
// the flag wins over the variable; a one-rank run "under mpirun" (Open MPI's
// variables, no mpirun) goes through a fake libmpi and says "bootstrap": "mpi".
// Where nothing is found at all, see missing_lib_test.sh.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "support/bench_output.h"
#include "support/process.h"
#include "support/test_support.h"

namespace fs = std::filesystem;

namespace {

const fs::path kFakes = RAILKIT_DLOPEN_FAKES;

using railkit::testing::ProcessResult;

// stderr only; stdout is dropped.
ProcessResult runStderr(const std::string& env, const std::string& args) {
  return railkit::testing::runShell(
      "env -u RAILKIT_UCX_LIB -u RAILKIT_MPI_LIB -u OMPI_COMM_WORLD_SIZE -u PMI_SIZE -u RANK -u WORLD_SIZE " +
      env + " " + railkit::testing::railkitBinary() + " " + args + " 2>&1 >/dev/null");
}

std::string fake(const std::string& dir) {
  return (kFakes / dir).string();
}

#ifdef RAILKIT_HAVE_UCX
TEST(DlopenCli, UcxLibraryLackingASymbolIsOneLineExitTwo) {
  auto r =
      runStderr("", "bench all_reduce --backend ucx --local 3 -b 1K -e 1K --ucx-lib " + fake("ucx-noprobe"));
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_EQ(r.out,
            "railkit: ucx backend: " + fake("ucx-noprobe") + "/libucp.so.0 has no symbol ucp_tag_probe_nb\n");
}

TEST(DlopenCli, UcxOfAnOlderMinorIsRefusedFromTheVariable) {
  auto r =
      runStderr("RAILKIT_UCX_LIB=" + fake("ucx-old"), "bench all_reduce --backend ucx --local 2 -b 1K -e 1K");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
  EXPECT_EQ(r.out.rfind("railkit: ucx backend: " + fake("ucx-old") +
                            "/libucp.so.0 is UCX 1.9.0, but this railkit "
                            "was built with the UCX ",
                        0),
            0u)
      << r.out;
  // The flag wins over the variable.
  r = runStderr("RAILKIT_UCX_LIB=" + fake("ucx-old"),
                "bench all_reduce --backend ucx --local 2 -b 1K -e 1K --ucx-lib " + fake("ucx-noprobe"));
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("has no symbol ucp_tag_probe_nb"), std::string::npos) << r.out;
}

TEST(DlopenCli, UcxLaunchedRankSaysItself) {
  // No fork: the rank loads UCX when its transport starts, after the bootstrap.
  auto r = runStderr(
      "RANK=0 WORLD_SIZE=1 MASTER_ADDR=127.0.0.1 MASTER_PORT=0",
      "bench all_reduce --backend ucx --ctrl-if lo --data-if lo -b 1K -e 1K --ucx-lib " + fake("ucx-major"));
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
  EXPECT_EQ(r.out.rfind(
                "railkit: rank 0: ucx backend: " + fake("ucx-major") + "/libucp.so.0 is UCX 2.0.0, but ", 0),
            0u)
      << r.out;
}

TEST(DlopenCli, OtherBackendsNeverLookForUcx) {
  auto r = runStderr("", "bench all_reduce --local 2 -b 1K -e 1K --ucx-lib " + fake("ucx-noprobe"));
  EXPECT_EQ(r.status, 0) << r.out;
}
#endif

#ifdef RAILKIT_HAVE_MPI
const std::string kUnderMpirun = "OMPI_COMM_WORLD_SIZE=1 OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_LOCAL_RANK=0";

TEST(DlopenCli, MpiBootstrapThroughAFakeOpenMpi) {
  auto r = railkit::testing::runShell(
      "env -u RAILKIT_MPI_LIB " + kUnderMpirun + " " + railkit::testing::railkitBinary() +
      " bench all_reduce --ctrl-if lo --data-if lo -b 1K -e 4K --json --mpi-lib " + fake("mpi-good") +
      " 2>/dev/null");
  ASSERT_EQ(r.status, 0) << r.out;
  auto doc = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << r.out;
  EXPECT_EQ(doc["bootstrap"], "mpi");
  EXPECT_EQ(doc["ranks"], 1);
  EXPECT_EQ(doc["wrong"], 0);
}

TEST(DlopenCli, AnotherMpiIsOneLineExitTwo) {
  for (const char* cmd : {"bench all_reduce -b 1K -e 1K", "validate"}) {
    auto r = runStderr(kUnderMpirun,
                       std::string(cmd) + " --ctrl-if lo --data-if lo --mpi-lib " + fake("mpi-mpich"));
    EXPECT_EQ(r.status, 2) << cmd << ": " << r.out;
    EXPECT_EQ(r.out,
              "railkit: rank 0: mpi bootstrap: " + fake("mpi-mpich") +
                  "/libmpi.so.40 is not Open MPI 3.x to 5.x (it says 'MPICH Version:\t4.0.2'); railkit uses "
                  "Open MPI's ABI (libmpi.so.40, as in HPC-X); install Open MPI (or HPC-X) or point "
                  "--mpi-lib (RAILKIT_MPI_LIB) at its directory\n")
        << cmd;
  }
  // The variable, when no flag is given.
  auto r = runStderr(kUnderMpirun + " RAILKIT_MPI_LIB=" + fake("mpi-nobarrier"),
                     "bench all_reduce --ctrl-if lo --data-if lo -b 1K -e 1K");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_EQ(r.out, "railkit: rank 0: mpi bootstrap: " + fake("mpi-nobarrier") +
                       "/libmpi.so.40 has no symbol MPI_Barrier\n");
}
#endif

}  // namespace
