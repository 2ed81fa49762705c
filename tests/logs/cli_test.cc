// railkit logs end to end: the JSON contract, exit codes, stdin, unreadable
// and odd inputs, grading with --root and --nic-gbps, the human view.
#include <fmt/core.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "cli/cli_run.h"
#include "support/node_builder.h"
#include "support/test_support.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

using railkit::testing::ProcessResult;

fs::path tempRoot() {
  static railkit::testing::BinaryScratchDir root("railkit-logs-cli");
  return root.path();
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

fs::path writeFile(const std::string& name, const std::string& text) {
  fs::path p = tempRoot() / name;
  std::ofstream(p, std::ios::binary) << text;
  return p;
}

ProcessResult run(const std::string& args, const std::string& stdin_file = "") {
  return railkit::testing::runRailkit("logs " + args + (stdin_file.empty() ? "" : " <" + stdin_file));
}

json parse(const ProcessResult& r) {
  json doc = json::parse(r.out, nullptr, false);
  EXPECT_FALSE(doc.is_discarded()) << r.out.substr(0, 500) << "\nstderr: " << r.err;
  return doc;
}

std::string shared(const std::string& rel) {
  return (railkit::testing::sharedDir() / "data" / rel).string();
}

// 16 ranks on `hosts` hosts, all_reduce, largest busbw as given.
std::string allReduceTable(int hosts, double busbw) {
  std::string text = "$ mpirun -np 16 ./build/all_reduce_perf -b 1M -e 8G -f 2\n";
  text +=
      "# nThread 1 nGpus 1 minBytes 1048576 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20\n";
  for (int r = 0; r < 16; ++r)
    text += fmt::format(
        "#  Rank {:2} Group  0 Pid {:6} on node-{} device {:2} [0x{:02x}] NVIDIA H100 80GB HBM3\n", r,
        1000 + r, r * hosts / 16, r % 8, r);
  text +=
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw "
      "  busbw #wrong\n";
  text += fmt::format(
      "  8589934592    2147483648     float     sum      -1   100000 {:7.2f} {:7.2f}      0   100000 {:7.2f} "
      "{:7.2f}      0\n",
      busbw / 1.875, busbw, busbw / 1.875, busbw);
  text += "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 100.5\n";
  return text;
}

TEST(LogsCli, JsonContractOnEveryKind) {
  RAILKIT_REQUIRE_SHARED();
  auto r = run(shared("nccl-logs/036.log") + " " + shared("perftest/005.txt") + " " +
               shared("nccl-logs/027.log") + " --json");
  auto doc = parse(r);
  ASSERT_TRUE(doc.is_object());
  ASSERT_TRUE(doc["inputs"].is_array());
  ASSERT_EQ(doc["inputs"].size(), 3u);
  ASSERT_TRUE(doc["job"].is_object());
  ASSERT_TRUE(doc["findings"].is_array());
  const auto& tests = doc["inputs"][0];
  EXPECT_EQ(tests["file"], shared("nccl-logs/036.log"));
  EXPECT_EQ(tests["kind"], "nccl-tests");
  ASSERT_TRUE(tests["rows"].is_array());
  EXPECT_EQ(tests["rows"].size(), 13u);
  EXPECT_DOUBLE_EQ(tests["avg_busbw_gbs"].get<double>(), 15.0418);
  EXPECT_DOUBLE_EQ(tests["peak_busbw_gbs"].get<double>(), 15.18);
  EXPECT_EQ(tests["wrong_total"], 0);
  EXPECT_GT(tests["nccl_lines"].get<int>(), 0);
  for (const char* key : {"inter_node_transport", "gdr", "nccl_version", "nccl_versions", "ranks"})
    EXPECT_TRUE(tests.contains(key)) << key;
  const auto& perf = doc["inputs"][1];
  EXPECT_EQ(perf["kind"], "perftest");
  ASSERT_EQ(perf["rows"].size(), 23u);
  EXPECT_DOUBLE_EQ(perf["rows"][22]["bw_avg_gbps"].get<double>(), 197.48);
  EXPECT_DOUBLE_EQ(perf["rows"][22]["bw_peak_gbps"].get<double>(), 197.48);
  EXPECT_EQ(perf["tool"], "ib_read_bw");
  const auto& log = doc["inputs"][2];
  EXPECT_EQ(log["kind"], "nccl-log");
  EXPECT_TRUE(log.contains("inter_node_transport"));
  for (const auto& f : doc["findings"]) {
    for (const char* key : {"id", "severity", "subject", "message", "fix", "file"})
      EXPECT_TRUE(f.contains(key)) << f;
    ASSERT_TRUE(f["evidence"].is_array());
  }
}

TEST(LogsCli, EverySharedFileIsRecognisedByContent) {
  RAILKIT_REQUIRE_SHARED();
  struct Dir {
    const char* name;
    const char* kind;
  };
  for (Dir dir :
       {Dir{"nccl-logs", "nccl-log"}, Dir{"nccl-tests", "nccl-tests"}, Dir{"perftest", "perftest"}}) {
    for (const auto& e : fs::directory_iterator(railkit::testing::sharedDir() / "data" / dir.name)) {
      std::string ext = e.path().extension().string();
      if (ext != ".log" && ext != ".txt") continue;
      // Copy under a neutral name: recognition must not look at the name.
      fs::path copy = tempRoot() / "input.data";
      fs::copy_file(e.path(), copy, fs::copy_options::overwrite_existing);
      auto doc = parse(run(copy.string() + " --json"));
      std::string expected = dir.kind;
      // These NCCL logs are whole nccl-tests outputs (INDEX.md: same files as nccl-tests 004/006).
      std::string stem = e.path().filename().string();
      if (std::string(dir.name) == "nccl-logs" && (stem == "036.log" || stem == "037.log"))
        expected = "nccl-tests";
      EXPECT_EQ(doc["inputs"][0]["kind"], expected) << e.path();
    }
  }
}

TEST(LogsCli, StdinIsADash) {
  RAILKIT_REQUIRE_SHARED();
  auto r = run("- --json", shared("perftest/004.txt"));
  auto doc = parse(r);
  EXPECT_EQ(doc["inputs"][0]["file"], "<stdin>");
  EXPECT_EQ(doc["inputs"][0]["kind"], "perftest");
  EXPECT_DOUBLE_EQ(doc["inputs"][0]["rows"][0]["t_avg_us"].get<double>(), 5.50);
  EXPECT_EQ(r.status, 0);
}

TEST(LogsCli, FailedPerftestRunExitsOne) {
  RAILKIT_REQUIRE_SHARED();
  auto r = run(shared("perftest/007.txt") + " --json");
  auto doc = parse(r);
  EXPECT_EQ(r.status, 1);
  bool found = false;
  for (const auto& f : doc["findings"])
    if (f["id"] == "perftest-failed") {
      found = true;
      EXPECT_NE(f["message"].get<std::string>().find("remote access error"), std::string::npos) << f;
      EXPECT_EQ(f["file"], shared("perftest/007.txt"));
    }
  EXPECT_TRUE(found);
}

TEST(LogsCli, NonexistentFileIsOneLineAndExitTwo) {
  auto r = run("/nonexistent/railkit-logs-input.log --json");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(r.out.empty());
  ASSERT_FALSE(r.err.empty());
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
  EXPECT_NE(r.err.find("/nonexistent/railkit-logs-input.log"), std::string::npos);
}

TEST(LogsCli, BinaryInputIsNotALog) {
  std::string bytes(70000, '\0');
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>((i * 131) % 251);
  auto path = writeFile("blob.bin", bytes);
  auto r = run(path.string() + " --json");
  EXPECT_EQ(r.status, 2);
  auto doc = parse(r);
  EXPECT_EQ(doc["inputs"][0]["kind"], "unknown");
  EXPECT_TRUE(doc["inputs"][0]["binary"].get<bool>());
  ASSERT_FALSE(doc["inputs"][0]["notes"].empty());
  EXPECT_NE(doc["inputs"][0]["notes"][0].get<std::string>().find("binary"), std::string::npos);
  EXPECT_NE(r.err.find("binary"), std::string::npos);
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
}

TEST(LogsCli, EmptyAndUnrecognisedInputsSaySo) {
  auto empty = run(writeFile("empty.log", "").string() + " --json");
  EXPECT_EQ(empty.status, 0);
  auto doc = parse(empty);
  EXPECT_EQ(doc["inputs"][0]["kind"], "unknown");
  EXPECT_NE(doc["inputs"][0]["notes"][0].get<std::string>().find("empty"), std::string::npos);
  auto prose = run(writeFile("prose.txt", "hello\nworld\n").string());
  EXPECT_EQ(prose.status, 0);
  EXPECT_NE(prose.out.find("no NCCL debug lines"), std::string::npos) << prose.out;
}

TEST(LogsCli, TenMegabyteLineIsCutNotFatal) {
  std::string text = "host-a:1:1 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n" + std::string(10u << 20, 'z') +
                     "\nhost-a:1:1 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n";
  auto r = run(writeFile("long.log", text).string() + " --json");
  auto doc = parse(r);
  EXPECT_EQ(doc["inputs"][0]["kind"], "nccl-log");
  EXPECT_EQ(doc["inputs"][0]["truncated_lines"], 1);
  EXPECT_EQ(doc["inputs"][0]["lines"], 3);
  EXPECT_NE(doc["inputs"][0]["notes"][0].get<std::string>().find("line 2"), std::string::npos);
}

TEST(LogsCli, ExpectBusbwPassAndFail) {
  auto table = writeFile("ar.txt", allReduceTable(2, 350));
  auto pass = run(table.string() + " --json --expect-busbw 300");
  EXPECT_EQ(pass.status, 0) << pass.err;
  auto doc = parse(pass);
  EXPECT_EQ(doc["job"]["grade"], "pass");
  EXPECT_DOUBLE_EQ(doc["job"]["grades"][0]["measured_busbw_gbs"].get<double>(), 350);
  auto fail = run(table.string() + " --expect-busbw 400");
  EXPECT_EQ(fail.status, 1);
  EXPECT_NE(fail.out.find("grade FAIL"), std::string::npos) << fail.out;
  EXPECT_NE(fail.out.find("nccl-tests-busbw-low"), std::string::npos) << fail.out;
}

TEST(LogsCli, LineRateFromRootOrNicGbps) {
  auto dir = tempRoot() / "dgx";
  railkit::testing::NodeBuilder::healthyDgxH100().write(dir);
  auto table = writeFile("ar2.txt", allReduceTable(2, 350));
  // 8 x 400 Gb/s per node, 16 ranks on 2 nodes: 0.8 * 400 * 1.875 / 1 = 600 GB/s.
  auto r = run(table.string() + " --json --expect-line-rate --root " + dir.string());
  EXPECT_EQ(r.status, 1) << r.err;
  auto doc = parse(r);
  const auto& g = doc["job"]["grades"][0];
  EXPECT_EQ(g["status"], "fail");
  EXPECT_DOUBLE_EQ(g["nic_gbps"].get<double>(), 3200);
  EXPECT_NEAR(g["expected_busbw_gbs"].get<double>(), 600, 1e-9);
  EXPECT_EQ(g["ranks"], 16);
  EXPECT_EQ(g["nodes"], 2);
  EXPECT_EQ(g["op"], "all_reduce");
  EXPECT_NE(g["nic_source"].get<std::string>().find("mlx5_0"), std::string::npos);
  auto half = run(table.string() + " --json --expect-line-rate=0.5 --nic-gbps 3200");
  EXPECT_EQ(half.status, 1) << half.err;  // 0.5 * 400 * 1.875 = 375 > 350
  auto half_doc = parse(half);
  EXPECT_NEAR(half_doc["job"]["grades"][0]["expected_busbw_gbs"].get<double>(), 375, 1e-9);
  auto low = run(table.string() + " --json --expect-line-rate=0.4 --nic-gbps 3200");
  EXPECT_EQ(low.status, 0) << low.err;  // 0.4 * 400 * 1.875 = 300 <= 350
  EXPECT_EQ(parse(low)["job"]["grades"][0]["status"], "pass");
}

TEST(LogsCli, OneNodeHasNoBound) {
  auto table = writeFile("ar1.txt", allReduceTable(1, 350));
  auto r = run(table.string() + " --json --expect-line-rate --nic-gbps 3200");
  EXPECT_EQ(r.status, 0) << r.err;
  auto doc = parse(r);
  EXPECT_EQ(doc["job"]["grades"][0]["status"], "no-bound");
  EXPECT_TRUE(doc["job"]["grades"][0]["expected_busbw_gbs"].is_null());
  auto human = run(table.string() + " --expect-line-rate --nic-gbps 3200");
  EXPECT_NE(human.out.find("one node"), std::string::npos) << human.out;
}

TEST(LogsCli, UsageErrorsExitTwo) {
  auto table = writeFile("ar3.txt", allReduceTable(2, 350));
  for (const char* args : {" --expect-line-rate", " --expect-busbw 1 --expect-line-rate --nic-gbps 1",
                           " --nodes 2", " --expect-line-rate --nic-gbps 1 --collective bogus",
                           " --expect-line-rate=abc --nic-gbps 1", " --expect-busbw -3"}) {
    auto r = run(table.string() + args);
    EXPECT_EQ(r.status, 2) << args << ": " << r.err;
    EXPECT_FALSE(r.err.empty()) << args;
  }
  EXPECT_EQ(run("").status, 2);
}

TEST(LogsCli, FilesOfOneInvocationAreOneJob) {
  RAILKIT_REQUIRE_SHARED();
  auto doc = parse(run(shared("nccl-logs/002.log") + " " + shared("nccl-logs/030.log") + " --json"));
  ASSERT_EQ(doc["inputs"].size(), 2u);
  EXPECT_EQ(doc["job"]["inputs"], 2);
  EXPECT_EQ(doc["job"]["kinds"]["nccl-log"], 2);
  size_t hosts = doc["inputs"][0]["hosts"].size() + doc["inputs"][1]["hosts"].size();
  EXPECT_EQ(doc["job"]["hosts"].size(), hosts);  // disjoint clusters: the union
  std::set<std::string> files;
  for (const auto& f : doc["findings"]) files.insert(f["file"].get<std::string>());
  EXPECT_TRUE(files.count(shared("nccl-logs/002.log"))) << doc["findings"];
}

// A table without Rank lines next to NCCL lines: ranks and nodes come from
// what NCCL printed (nRanks 16, nNodes 2).
TEST(LogsCli, GradeTakesRanksAndNodesFromNcclLines) {
  std::string text;
  for (int r = 0; r < 16; ++r)
    text += fmt::format(
        "node-{}:{}:{} [{}] NCCL INFO comm 0x55 rank {} nRanks 16 nNodes 2 localRanks 8 localRank {} MNNVL "
        "0\n",
        r / 8, 100 + r, 100 + r, r % 8, r, r % 8);
  text +=
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw "
      "  busbw #wrong\n";
  text +=
      "  8589934592    2147483648     float     sum      -1   100000  200.00  375.00      0   100000  200.00 "
      " 375.00      0\n";
  auto r = run(writeFile("mixed.log", text).string() + " --json --expect-line-rate --nic-gbps 3200");
  auto doc = parse(r);
  EXPECT_EQ(doc["inputs"][0]["kind"], "nccl-tests");
  const auto& g = doc["job"]["grades"][0];
  EXPECT_EQ(g["nodes"], 2) << g;
  EXPECT_EQ(g["ranks"], 16) << g;
  EXPECT_NE(g["nodes_source"].get<std::string>().find("NCCL"), std::string::npos) << g;
  EXPECT_NEAR(g["expected_busbw_gbs"].get<double>(), 600, 1e-9);
  EXPECT_EQ(g["status"], "fail");
  EXPECT_EQ(r.status, 1);
}

TEST(LogsCli, JsonOutKeepsTheHumanView) {
  RAILKIT_REQUIRE_SHARED();
  auto out = tempRoot() / "out.json";
  auto r = run(shared("perftest/009.txt") + " --json-out " + out.string());
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("mlx5_5"), std::string::npos) << r.out;
  auto doc = json::parse(slurp(out), nullptr, false);
  ASSERT_FALSE(doc.is_discarded());
  EXPECT_EQ(doc["inputs"][0]["qps"], 4);
}

// --json streams the document to stdout through a 64 KiB buffer; --json-out
// writes it whole. Both must be the same bytes for a document several times
// the buffer's size.
TEST(LogsCli, JsonOnStdoutEqualsJsonOut) {
  std::string log;
  for (int rank = 0; rank < 600; ++rank) {
    log += fmt::format("node{}:{}:{} [{}] NCCL INFO Channel 00/0 : {}[{}] -> {}[{}] via NET/IB/0\n", rank / 8,
                       1000 + rank, 2000 + rank, rank % 8, rank, rank % 8, (rank + 1) % 600, (rank + 1) % 8);
  }
  auto in = writeFile("stream.log", log);
  auto out = tempRoot() / "stream.json";
  auto r = run(in.string() + " --json --json-out " + out.string());
  std::string file = slurp(out);
  EXPECT_GT(r.out.size(), size_t{64} << 10);
  EXPECT_EQ(r.out, file);
  EXPECT_FALSE(json::parse(r.out, nullptr, false).is_discarded());
}

// The human view's per-rank line: per input, and for the job when there are
// several inputs (one file per rank), grouped by NET transport and GDR.
TEST(LogsCli, PerRankLineGroupsTheRanks) {
  RAILKIT_REQUIRE_SHARED();
  auto one = run(shared("nccl-logs/037.log"));
  EXPECT_NE(
      one.out.find(
          "  per rank: 4 rank(s) with lines of their own, on 1 host(s): NET/IB GDR 2, no NET channel 2\n"),
      std::string::npos)
      << one.out;
  auto two = run(shared("nccl-logs/017.log") + " " + shared("nccl-logs/036.log"));
  size_t job = two.out.find("\njob: 2 input(s)");
  ASSERT_NE(job, std::string::npos) << two.out;
  EXPECT_NE(
      two.out.find(
          "  per rank: 5 rank(s) with lines of their own, on 2 host(s): no NET channel 4, NET/IB no GDR 1\n",
          job),
      std::string::npos)
      << two.out;
}

}  // namespace
