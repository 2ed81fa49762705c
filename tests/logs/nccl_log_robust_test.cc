// What people paste: CRLF, colour codes, launcher and timestamp prefixes,
// wrapped and truncated lines, binary garbage, empty input, huge lines.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>

#include "logs/input.h"
#include "logs/nccl_log.h"
#include "nccl_log_test_util.h"
#include "support/test_support.h"

namespace railkit::logs {
namespace {

using testutil::feedText;
using testutil::find;

const char* kSocketJob =
    "w0:1:1 [0] NCCL INFO NCCL version 2.19.3+cuda12.3\n"
    "w0:1:1 [0] NCCL INFO NET/IB : No device found.\n"
    "w0:1:1 [0] NCCL INFO Using network Socket\n"
    "w1:2:2 [0] NCCL INFO Using network Socket\n"
    "w0:1:3 [0] NCCL INFO Channel 00/0 : 1[0] -> 0[0] [receive] via NET/Socket/0\n"
    "w0:1:3 [0] transport/net_ib.cc:1295 NCCL WARN NET/IB : Got completion from peer 10.0.0.2<5> with error "
    "12, "
    "opcode 0, len 0, vendor err 129 (Recv)\n";

void expectSocketJob(const NcclLogAnalyzer& a) {
  auto facts = a.facts();
  EXPECT_EQ(facts.inter_node_transport, "Socket");
  EXPECT_EQ(facts.hosts, (std::vector<std::string>{"w0", "w1"}));
  EXPECT_EQ(facts.nccl_versions, (std::vector<std::string>{"2.19.3+cuda12.3"}));
  auto findings = a.findings();
  EXPECT_NE(find(findings, "nccl-net-socket"), nullptr);
  EXPECT_NE(find(findings, "nccl-ib-completion-error"), nullptr);
}

std::string transformLines(const std::string& text, const std::string& prefix, const std::string& suffix) {
  std::string out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    out += prefix + text.substr(start, end - start) + suffix + "\n";
    start = end + 1;
  }
  return out;
}

TEST(NcclRobust, PlainBaseline) {
  NcclLogAnalyzer a("plain");
  feedText(a, kSocketJob);
  expectSocketJob(a);
}

TEST(NcclRobust, WindowsLineEndings) {
  NcclLogAnalyzer a("crlf");
  feedText(a, transformLines(kSocketJob, "", "\r"));
  expectSocketJob(a);
  EXPECT_EQ(a.facts().nccl_versions.front().back(), '3');  // no '\r' kept
}

TEST(NcclRobust, AnsiColourCodes) {
  NcclLogAnalyzer a("ansi");
  feedText(a, transformLines(kSocketJob, "\x1b[32m", "\x1b[0m"));
  expectSocketJob(a);
}

TEST(NcclRobust, LauncherAndTimestampPrefixes) {
  for (const char* prefix : {"[1,3]<stdout>:", "2024-05-01T12:00:00.123456789Z ",
                             "12: ", "[pod/nccl-worker-0/main] 2024-05-01T12:00:00Z ", "[trainer3]:"}) {
    SCOPED_TRACE(prefix);
    NcclLogAnalyzer a("prefixed");
    feedText(a, transformLines(kSocketJob, prefix, ""));
    expectSocketJob(a);
  }
}

TEST(NcclRobust, RanksOutOfOrderAndInterleaved) {
  NcclLogAnalyzer a("shuffled");
  std::vector<std::string> lines;
  for (int r = 15; r >= 0; --r) {
    char buffer[200];
    std::snprintf(
        buffer, sizeof buffer,
        "n%d:%d:1 [%d] NCCL INFO comm 0x1 rank %d nRanks 16 nNodes 2 localRanks 8 localRank %d MNNVL 0",
        r / 8, 100 + r, r % 8, r, r % 8);
    lines.emplace_back(buffer);
  }
  lines.push_back("n1:108:1 [0] NCCL INFO Channel 00/0 : 7[7] -> 8[0] [receive] via NET/IB/0/GDRDMA");
  uint64_t n = 0;
  for (const auto& l : lines) a.feedLine(l, ++n);
  auto facts = a.facts();
  EXPECT_EQ(facts.ranks, 16u);
  EXPECT_EQ(facts.nranks.value_or(0), 16u);
  EXPECT_EQ(facts.hosts.size(), 2u);
  EXPECT_EQ(facts.gdr, std::optional<bool>(true));
  EXPECT_EQ(facts.inter_node_transport, "IB");
}

TEST(NcclRobust, WrappedAndTruncatedLines) {
  NcclLogAnalyzer a("wrapped");
  // A terminal wrapped the completion line at 80 columns; the log also stops mid-line.
  feedText(a,
           "h1:1:1 [0] transport/net_ib.cc:1295 NCCL WARN NET/IB : Got completion from peer 1\n"
           "0.0.0.2<5> with error 12, opcode 0, len 0, vendor err 129 (Recv)\n"
           "h1:1:1 [0] misc/ibvwrap.cc:187 NCCL WARN Call to ibv_modify_qp failed with error Netw\n"
           "h1:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/I");
  auto findings = a.findings();
  EXPECT_NE(find(findings, "nccl-qp-connect-failed"), nullptr);
  auto facts = a.facts();
  EXPECT_EQ(facts.hosts.size(), 1u);
}

TEST(NcclRobust, EmptyAndBlank) {
  NcclLogAnalyzer a("empty");
  feedText(a, "");
  a.feedLine("", 1);
  a.feedLine("\r", 2);
  EXPECT_FALSE(a.sawNccl());
  EXPECT_TRUE(a.findings().empty());
  auto facts = a.facts();
  EXPECT_EQ(facts.inter_node_transport, "unknown");
  EXPECT_FALSE(facts.gdr.has_value());
  auto json = factsToJson(facts);
  EXPECT_TRUE(json["nccl_version"].is_null());
  EXPECT_TRUE(json["gdr"].is_null());
}

TEST(NcclRobust, BinaryGarbage) {
  std::mt19937 rng(7);
  std::string garbage(1 << 16, '\0');
  for (auto& c : garbage) c = static_cast<char>(rng());
  garbage +=
      "NCCL INFO \x1b[ NCCL WARN [ ] : -> 99999999999999999999 via NET/ peer  Got completion with error ";
  NcclLogAnalyzer a("garbage");
  feedText(a, garbage);
  // Garbage gives no facts it does not show: no version, no rank count
  // from the 20-digit number, no transport; what it reports serialises.
  auto facts = a.facts();
  EXPECT_TRUE(facts.nccl_versions.empty());
  EXPECT_FALSE(facts.nranks.has_value());
  EXPECT_EQ(facts.inter_node_transport, "unknown");
  EXPECT_TRUE(facts.hcas.empty());
  for (const auto& finding : a.findings()) EXPECT_FALSE(finding.id.empty());
  auto json = factsToJson(facts);
  ASSERT_TRUE(json.is_object());
  EXPECT_NO_THROW((void)json.dump());
}

TEST(NcclRobust, InvalidUtf8StillGivesJson) {
  NcclLogAnalyzer a("latin1");
  feedText(a,
           "h\xe9:1:1 [0] NCCL INFO Using network Socket\n"
           "h2:1:1 [0] NCCL INFO Using network Socket\n"
           "h\xe9:1:1 [0] misc/socket.cc:47 NCCL WARN socketProgress: Connection closed by remote peer "
           "p\xff\xfe<1>\n");
  auto findings = a.findings();
  ASSERT_NE(find(findings, "nccl-connection-closed"), nullptr);
  ASSERT_NE(find(findings, "nccl-net-socket"), nullptr);
  EXPECT_NO_THROW((void)findingsToJson(findings).dump());
  EXPECT_NO_THROW((void)factsToJson(a.facts()).dump());
  EXPECT_EQ(a.facts().hosts.front(), "h?");
}

TEST(NcclRobust, HugeLineStaysBounded) {
  size_t size = std::getenv("RAILKIT_SANITIZER_BUILD") ? (size_t{1} << 20) : (size_t{10} << 20);
  std::string line = "h:1:1 [0] misc/ibvwrap.cc:187 NCCL WARN Call to ibv_modify_qp failed with error ";
  line.append(size, 'x');
  NcclLogAnalyzer a("huge");
  a.feedLine(line, 1);
  auto findings = a.findings();
  const Finding* f = find(findings, "nccl-qp-connect-failed");
  ASSERT_NE(f, nullptr);
  for (const auto& e : f->evidence) EXPECT_LT(e.text.size(), 1000u);
  EXPECT_LT(f->message.size(), 2000u);
}

TEST(NcclRobust, EvidenceIsBoundedOnRepeats) {
  NcclLogAnalyzer a("repeats");
  for (uint64_t i = 1; i <= 10000; ++i)
    a.feedLine(
        "h:1:1 [0] misc/ibvwrap.cc:239 NCCL WARN Call to ibv_reg_mr failed with error Cannot allocate memory",
        i);
  auto findings = a.findings();
  const Finding* f = find(findings, "nccl-verbs-resource-failed");
  ASSERT_NE(f, nullptr);
  EXPECT_LE(f->evidence.size(), kMaxEvidencePerFinding + 1);
  EXPECT_THAT(f->evidence.back().text, ::testing::HasSubstr("9995 more"));
}

// A file goes through the threaded reader, where the NCCL line analysis is
// split across the reader thread and the caller's; text in memory goes line
// by line through feedLine. Both give the same report, also with blocks
// small enough that many lines cross a boundary, and whichever thread
// classifies the lines (the reader's, the caller's, or both taking turns).
TEST(NcclRobust, FileReadMatchesInMemoryAnalysis) {
  std::string fixtures;
  for (const auto& entry :
       std::filesystem::directory_iterator(railkit::testing::fixturesDir() / "logs" / "nccl"))
    fixtures += testutil::readFile(entry.path().string()) + "\n";
  std::string text;
  for (int round = 0; round < 8; ++round) {
    text += fixtures;
    text += transformLines(fixtures, round % 2 ? "[1," + std::to_string(round) + "]<stdout>:" : "\x1b[32m",
                           round % 3 ? "\x1b[0m\r" : "\r");
  }
  char path[] = "/tmp/railkit_nccl_staged_XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
  close(fd);
  auto report = [](const InputReport& r) {
    return inputToJson(r).dump() + findingsToJson(r.findings).dump();
  };
  auto want = report(analyzeText(path, text));
  EXPECT_NE(want.find("nccl-ib-completion-error"), std::string::npos);
  using Preparation = LineReaderOptions::Preparation;
  for (size_t block : {size_t{1} << 20, size_t{4093}})
    for (Preparation preparation : {Preparation::kShared, Preparation::kReader, Preparation::kCaller}) {
      LineReaderOptions options;
      options.block_bytes = block;
      options.preparation = preparation;
      auto got = analyzeFile(path, options);
      ASSERT_TRUE(got.has_value());
      EXPECT_EQ(report(*got), want) << "block " << block << ", preparation " << static_cast<int>(preparation);
    }
  unlink(path);
}

// A line too long for PreparedLine's offsets is classified when fed: the
// per-rank view comes out as from feedLine, including a rank whose first
// line is such a long one.
TEST(NcclRobust, LongPreparedLineKeepsItsRank) {
  std::string pad(70000, 'x');
  const std::vector<std::string> lines = {
      "h:1:1 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 busId 1000 - Init START",
      "h:2:2 [1] NCCL INFO Channel 00/0 : 1[1] -> 0[0] via NET/IB/0 " + pad,
      "h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via NET/IB/0 " + pad,
      "h:2:2 [1] NCCL INFO comm 0x1 rank 1 nranks 2 cudaDev 1 busId 2000 - Init START",
      "h:1:1 [0] NCCL INFO Using network IB",
      "h:2:2 [1] NCCL INFO Using network IB",
  };
  NcclLogAnalyzer fed("t.log"), prepared("t.log");
  uint64_t n = 0;
  for (const auto& line : lines) {
    fed.feedLine(line, ++n);
    auto p = NcclLogAnalyzer::prepareLine(line);
    prepared.feedPrepared(line, p, n);
  }
  auto want = factsToJson(fed.facts()), got = factsToJson(prepared.facts());
  EXPECT_EQ(got, want);
  ASSERT_EQ(got["per_rank"].size(), 2u) << got.dump(2);
  EXPECT_EQ(got["per_rank"][1]["host"], "h") << got.dump(2);
  EXPECT_EQ(got["per_rank"][1]["line"], 2) << "rank 1 first seen on its long line: " << got.dump(2);
}

// The reader thread reuses the header parse of the line before when a line
// starts with the same bytes; every line must come out as without the memo,
// including lines that only look like a repeat.
TEST(NcclRobust, HeaderMemoPreparesLinesAsWithout) {
  const std::vector<std::string> lines = {
      "h:1:1 [0] NCCL INFO Using network IB",
      "h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC",
      "h:1:1 [0]x NCCL INFO the header bytes, then more before the level word",
      "h:1:1 [0] g:2:2 [1] NCCL INFO a second header after the first",
      "h:1:1 [0] NCCL WARN Call to ibv_reg_mr failed",
      "h:1:1 [0] NCCL",
      "h:1:1 [0] no level word here",
      "h:1:1 [0] INFO old NCCL without the word",
      "h:1:12 [0] NCCL INFO another tid",
      "h:1:1 [01] NCCL INFO a longer device",
      "[1,3]<stdout>:h:1:1 [0] NCCL INFO behind mpirun's prefix",
      "[1,3]<stdout>:h:1:1 [0] NCCL INFO again",
      "[1,3]<stdout>:h:1:1 [0] NCCL INFO NCCL version 2.21.5",
      "xNCCLy:7:7 [2] NCCL INFO a host that holds NCCL",
      "xNCCLy:7:7 [2] NCCL INFO again",
      "2024-05-01T12:00:00Z h:1:1 [0] NCCL INFO stamped",
      "2024-05-01T12:00:00Z h:1:1 [0] NCCL INFO stamped again",
      "h:1:1 [0] NCCL INFO",
      "h:1:1 [0",
      // Same process, other threads: the memo's bytes through `pid:`, a tid,
      // then its ` [dev]`; and lines that differ just after the tid.
      "h:1:77 [0] NCCL INFO same process, another thread",
      "h:1:7 [0] NCCL INFO a shorter tid",
      "h:1:7x [0] NCCL INFO a tid that is not a number",
      "h:1: [0] NCCL INFO no tid",
      "h:1:8 [1] NCCL INFO same process, another device",
      "h:1:8 [1]NCCL INFO no space before the level word",
      "h:1:9 [1] [2] NCCL INFO two device tags",
      "h:1:9 [12] NCCL INFO a device that starts the same",
      "h:12:8 [1] NCCL INFO a longer pid",
      "h:1:888888888888888888888888888888888888888888888888888 [1] NCCL INFO a long tid",
      "h:1:9 [1 NCCL INFO an open device tag",
      "h:1:9 NCCL INFO no device tag",
      "h:1:9",
      "",
  };
  nccl::HeaderMemo memo;
  auto fields = [](const NcclLogAnalyzer::PreparedLine& p) {
    return std::vector<uint64_t>{p.level,  p.text_len, p.body_at, p.body_len, p.host_at,    p.host_len,
                                 p.pid_at, p.pid_len,  p.dev_at,  p.dev_len,  p.header_hash};
  };
  int hits = 0;
  for (int round = 0; round < 2; ++round)
    for (const auto& line : lines) {
      auto with = NcclLogAnalyzer::prepareLine(line, &memo);
      hits += memo.hit;
      EXPECT_EQ(fields(with), fields(NcclLogAnalyzer::prepareLine(line))) << line;
    }
  EXPECT_GT(hits, 0);  // the memo was used, not just left empty

  // Another thread of the process the line before came from takes the
  // header from the memo.
  NcclLogAnalyzer::prepareLine("node-7:4242:4243 [3] NCCL INFO Using network IB", &memo);
  auto other_thread = NcclLogAnalyzer::prepareLine("node-7:4242:990011 [3] NCCL INFO Init COMPLETE", &memo);
  EXPECT_TRUE(memo.hit);
  EXPECT_EQ(fields(other_thread),
            fields(NcclLogAnalyzer::prepareLine("node-7:4242:990011 [3] NCCL INFO Init COMPLETE")));
  NcclLogAnalyzer::prepareLine("node-7:4242:4243 [4] NCCL INFO another device", &memo);
  EXPECT_FALSE(memo.hit);
}

// The same on every line of the real logs in ../shared (NCCL's own threads
// taking turns, launcher prefixes, WARN frames): the memo changes nothing
// the line would have been prepared as.
TEST(NcclRobust, HeaderMemoPreparesSharedLogsAsWithout) {
  RAILKIT_REQUIRE_SHARED();
  auto fields = [](const NcclLogAnalyzer::PreparedLine& p) {
    return std::vector<uint64_t>{p.level,  p.text_len, p.body_at, p.body_len, p.host_at,    p.host_len,
                                 p.pid_at, p.pid_len,  p.dev_at,  p.dev_len,  p.header_hash};
  };
  size_t lines = 0, hits = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(railkit::testing::sharedDir() / "data" / "nccl-logs")) {
    std::string text = testutil::readFile(entry.path().string());
    nccl::HeaderMemo memo;
    for (size_t at = 0; at < text.size();) {
      size_t end = std::min(text.find('\n', at), text.size());
      std::string line = text.substr(at, end - at);
      at = end + 1;
      if (line.find('\x1b') != std::string::npos) continue;  // the reader strips colour codes first
      auto with = NcclLogAnalyzer::prepareLine(line, &memo);
      hits += memo.hit;
      ++lines;
      EXPECT_EQ(fields(with), fields(NcclLogAnalyzer::prepareLine(line))) << entry.path() << ": " << line;
    }
  }
  EXPECT_GT(lines, 500u);
  EXPECT_GT(hits, 100u);  // the memo served real lines, not only the made-up ones above
}

// Not a timing assertion: prints the per-line cost so a regression is visible in the log.
TEST(NcclRobust, PerLineCostReport) {
  std::vector<std::string> lines = {
      "gpu-node-001:4001:5001 [1] NCCL INFO Channel 03/0 : 9[1] -> 17[1] [send] via NET/IB/1/GDRDMA",
      "gpu-node-001:4001:5001 [1] NCCL INFO Channel 03/0 : 9[1] -> 10[2] via P2P/IPC/read",
      "gpu-node-001:4001:5001 [1] NCCL INFO Connected all rings",
      "[1,9]<stdout>:gpu-node-001:4001:5001 [1] NCCL INFO Trees [0] 10/-1/-1->9->8 [1] 10/-1/-1->9->8",
      "step 1200 loss 2.31 lr 0.0003 tokens/s 183422",
      "  1048576        262144     float     sum      -1    45.12   23.24   43.57      0    44.98   23.31   "
      "43.71      0",
  };
  NcclLogAnalyzer a("bench");
  size_t iterations = std::getenv("RAILKIT_SANITIZER_BUILD") ? 20000 : 500000;
  auto start = std::chrono::steady_clock::now();
  uint64_t n = 0;
  for (size_t i = 0; i < iterations; ++i)
    for (const auto& l : lines) a.feedLine(l, ++n);
  double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count() /
              static_cast<double>(n);
  std::printf("per-line cost: %.1f ns over %llu lines\n", ns, static_cast<unsigned long long>(n));
  EXPECT_EQ(a.facts().transports.at("NET/IB/GDRDMA"), iterations);
}

}  // namespace
}  // namespace railkit::logs
