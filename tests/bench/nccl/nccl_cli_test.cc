// `railkit bench --backend nccl` end to end against the FAKE libraries
// (fake_nccl.cc / fake_cudart.cc: host memory, one rank). This proves the
// plumbing (loading, ncclUniqueId through the bootstrap, the engine path of
// the harness, checking, the nccl-tests output, the derived NCCL_* env and
// the error lines), not NCCL's performance, which needs a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "support/bench_output.h"
#include "support/process.h"
#include "support/test_support.h"

namespace fs = std::filesystem;

namespace {

const fs::path kFakes = RAILKIT_FAKE_NCCL_DIR;

using railkit::testing::ProcessResult;

ProcessResult run(const std::string& cmd) {
  return railkit::testing::runShell(cmd, 170);
}

std::string bench(const std::string& args) {
  return "env -u NCCL_SOCKET_IFNAME -u NCCL_IB_HCA " + railkit::testing::railkitBinary() + " bench " + args;
}

std::string fakeLib() {
  return " --nccl-lib " + (kFakes / "good").string();
}

TEST(NcclCli, FakeLibraryAllOpsOneRankCheckPasses) {
  auto r =
      run(bench("all --backend nccl --local 1 -b 1K -e 64K -f 8 -n 2 -w 1 -d int32" + fakeLib()) + " 2>&1");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("device  0 [cpu] nccl lo cuda:0"), std::string::npos) << r.out;
  for (const char* op :
       {"all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce", "alltoall", "sendrecv"}) {
    EXPECT_NE(r.out.find(std::string("# Collective test starting: ") + op), std::string::npos) << op;
  }
  // 7 ops x 3 sizes, each with a checked #wrong of 0 in both placements.
  auto rows = railkit::testing::parseRows(r.out);
  for (const auto& row : rows) {
    EXPECT_EQ(row.wrong[0], 0) << row.size;
    EXPECT_EQ(row.wrong[1], 0) << row.size;
    EXPECT_EQ(row.type, "int32");
  }
  EXPECT_EQ(rows.size(), 21u) << r.out;
  EXPECT_NE(r.out.find("# Out of bounds values : 0 OK"), std::string::npos);
}

TEST(NcclCli, FakeLibraryWrongResultsExitOne) {
  auto r = run("FAKE_NCCL_CORRUPT=1 " + bench("all_reduce --backend nccl --local 1 -b 4K -e 4K" + fakeLib()) +
               " 2>&1");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("# Out of bounds values : 2 FAILED"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("wrong element(s)"), std::string::npos) << r.out;
}

TEST(NcclCli, FakeLibraryJsonNamesTheBackendAndDerivedEnv) {
  fs::path rec = fs::temp_directory_path() / ("railkit-nccl-rec-" + std::to_string(getpid()));
  auto r = run("FAKE_NCCL_RECORD=" + rec.string() + " " +
               bench("all_reduce --backend nccl --local 1 -b 1K -e 1K --json" + fakeLib()) + " 2>/dev/null");
  ASSERT_EQ(r.status, 0) << r.out;
  auto doc = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << r.out;
  EXPECT_EQ(doc["backend"], "nccl");
  EXPECT_EQ(doc["results"][0]["rows"][0]["in_place"]["wrong"], 0);
  EXPECT_EQ(doc["devices"][0]["address"], "cuda:0");
  EXPECT_NE(doc["environment"].dump().find("NCCL_SOCKET_IFNAME=lo"), std::string::npos) << doc.dump();
  // What NCCL itself saw at ncclCommInitRank.
  std::ifstream f(rec);
  std::stringstream seen;
  seen << f.rdbuf();
  EXPECT_EQ(seen.str(), "NCCL_SOCKET_IFNAME=lo\nNCCL_IB_HCA=(unset)\n");
  // A user's NCCL_SOCKET_IFNAME is left alone.
  r = run("FAKE_NCCL_RECORD=" + rec.string() + " NCCL_SOCKET_IFNAME=eth " +
          railkit::testing::railkitBinary() +
          " bench all_reduce --backend nccl --local 1 -b 1K -e 1K --json" + fakeLib() + " 2>/dev/null");
  ASSERT_EQ(r.status, 0) << r.out;
  std::ifstream g(rec);
  std::stringstream seen2;
  seen2 << g.rdbuf();
  EXPECT_EQ(seen2.str(), "NCCL_SOCKET_IFNAME=eth\nNCCL_IB_HCA=(unset)\n");
  fs::remove(rec);
}

bool realNccl() {
  return run("ldconfig -p | grep -q 'libnccl.so.2 '").status == 0;
}

// Without NCCL: "cannot load"; with a real NCCL but no GPU (CUDA installed,
// no driver): the CUDA runtime's complaint. Either way one line and exit 2.
TEST(NcclCli, MissingLibraryOrNoGpuOneLineExitTwo) {
  auto r = run("LD_LIBRARY_PATH=/nonexistent " +
               bench("all_reduce --backend nccl --local 2 --nccl-lib /nonexistent/lib -b 1K -e 1K") +
               " 2>&1 >/dev/null");
  EXPECT_EQ(r.status, 2) << r.out;
  if (!realNccl()) {
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
    EXPECT_EQ(
        r.out.rfind(
            "railkit: nccl backend: cannot load libnccl.so.2 (searched /nonexistent/lib/libnccl.so.2, ", 0),
        0u)
        << r.out;
    return;
  }
  r = run(bench("all_reduce --backend nccl --local 3 -b 1K -e 1K") + " 2>&1 >/dev/null");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
  EXPECT_EQ(r.out.rfind("railkit: nccl backend: cudaGetDeviceCount failed: ", 0), 0u) << r.out;
}

TEST(NcclCli, TooFewGpusIsAClearError) {
  // --local: one probe before forking, one line.
  auto r = run("FAKE_CUDA_DEVICES=1 " + bench("all_reduce --backend nccl --local 3 -b 1K -e 1K" + fakeLib()) +
               " 2>&1");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_EQ(r.out,
            "railkit: nccl backend: 3 rank(s) on this host need 3 GPU(s), one per rank, but the CUDA runtime "
            "sees 1 "
            "(check CUDA_VISIBLE_DEVICES)\n");
  // A launched rank checks its own local rank against the devices it sees.
  r = run("FAKE_CUDA_DEVICES=0 RANK=0 WORLD_SIZE=1 MASTER_ADDR=127.0.0.1 MASTER_PORT=0 " +
          bench("all_reduce --backend nccl --ctrl-if lo --data-if lo -b 1K -e 1K --bootstrap-timeout 5" +
                fakeLib()) +
          " 2>&1");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("railkit: rank 0: nccl backend: rank 0 is local rank 0 on"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("only 0 GPU(s) are visible"), std::string::npos) << r.out;
}

}  // namespace
