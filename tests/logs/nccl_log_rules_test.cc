// Every NCCL finding fires on its own realistic fixture, and none fires on a
// healthy multi-node InfiniBand log.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "logs/nccl_log.h"
#include "nccl_log_test_util.h"
#include "support/test_support.h"

namespace railkit::logs {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;
using testutil::feedText;
using testutil::find;
using testutil::ids;

NcclLogAnalyzer analyzeFixture(const std::string& name) {
  NcclLogAnalyzer analyzer(name);
  std::string path = (railkit::testing::fixturesDir() / "logs" / "nccl" / name).string();
  std::string text = testutil::readFile(path);
  EXPECT_FALSE(text.empty()) << path;
  feedText(analyzer, text);
  return analyzer;
}

const std::vector<std::string> kAllIds = {"nccl-net-socket",
                                          "nccl-no-gdr",
                                          "nccl-verbs-resource-failed",
                                          "nccl-verbs-open-failed",
                                          "nccl-qp-connect-failed",
                                          "nccl-ib-completion-error",
                                          "nccl-proxy-crash",
                                          "nccl-connection-closed",
                                          "nccl-no-interface",
                                          "nccl-shm-failure",
                                          "nccl-timeout",
                                          "nccl-duplicate-gpu",
                                          "nccl-version-mismatch",
                                          "nccl-unhandled-error",
                                          "process-crash"};

struct Case {
  const char* fixture;
  const char* id;
};

class FiresOnFixture : public ::testing::TestWithParam<Case> {};

TEST_P(FiresOnFixture, IdFiresWithEvidence) {
  auto analyzer = analyzeFixture(GetParam().fixture);
  auto findings = analyzer.findings();
  const Finding* f = find(findings, GetParam().id);
  ASSERT_NE(f, nullptr) << GetParam().fixture << " fired: " << ::testing::PrintToString(ids(findings));
  EXPECT_FALSE(f->evidence.empty());
  EXPECT_EQ(f->file, GetParam().fixture);
  EXPECT_TRUE(f->evidence.front().line.has_value());
  EXPECT_FALSE(f->fix.empty());
  EXPECT_FALSE(f->message.empty());
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, FiresOnFixture,
    ::testing::Values(Case{"net_socket.log", "nccl-net-socket"}, Case{"no_gdr.log", "nccl-no-gdr"},
                      Case{"verbs_resource_failed.log", "nccl-verbs-resource-failed"},
                      Case{"verbs_open_failed.log", "nccl-verbs-open-failed"},
                      Case{"qp_connect_failed.log", "nccl-qp-connect-failed"},
                      Case{"ib_completion_error.log", "nccl-ib-completion-error"},
                      Case{"proxy_crash.log", "nccl-proxy-crash"}, Case{"proxy_crash.log", "process-crash"},
                      Case{"connection_closed.log", "nccl-connection-closed"},
                      Case{"no_interface.log", "nccl-no-interface"},
                      Case{"shm_failure.log", "nccl-shm-failure"}, Case{"timeout.log", "nccl-timeout"},
                      Case{"duplicate_gpu.log", "nccl-duplicate-gpu"},
                      Case{"version_mismatch.log", "nccl-version-mismatch"},
                      Case{"unhandled_error.log", "nccl-unhandled-error"}));

TEST(NcclHealthyIb, NoFindingAndFacts) {
  auto analyzer = analyzeFixture("healthy_ib.log");
  auto findings = analyzer.findings();
  for (const auto& id : kAllIds) EXPECT_THAT(ids(findings), Not(Contains(id)));
  auto facts = analyzer.facts();
  EXPECT_EQ(facts.inter_node_transport, "IB");
  ASSERT_TRUE(facts.gdr.has_value());
  EXPECT_TRUE(*facts.gdr);
  ASSERT_EQ(facts.nccl_versions.size(), 1u);
  EXPECT_EQ(facts.nccl_versions[0], "2.21.5+cuda12.4");
  EXPECT_EQ(facts.hosts.size(), 2u);
  EXPECT_EQ(facts.ranks, 4u);
  EXPECT_EQ(facts.nnodes.value_or(0), 2u);
  EXPECT_THAT(facts.hcas, Contains("mlx5_0:1/IB"));
  EXPECT_THAT(facts.bootstrap, Contains("eth0:10.0.0.11"));
  EXPECT_EQ(facts.transports["NET/IB/GDRDMA"], 4u);
  EXPECT_EQ(facts.transports["P2P/CUMEM"], 1u);
  EXPECT_EQ(facts.transports["P2P/IPC"], 1u);
  EXPECT_THAT(facts.cuda_driver, Contains("12040"));
  auto json = factsToJson(facts);
  EXPECT_EQ(json["inter_node_transport"], "IB");
  EXPECT_EQ(json["gdr"], true);
  EXPECT_EQ(json["nccl_version"], "2.21.5+cuda12.4");
  EXPECT_EQ(json["ranks"], 4);
}

TEST(NcclRules, MessagesDecodeAndName) {
  {
    auto f = analyzeFixture("ib_completion_error.log").findings();
    const Finding* c = find(f, "nccl-ib-completion-error");
    ASSERT_NE(c, nullptr);
    EXPECT_THAT(c->message, HasSubstr("IBV_WC_RETRY_EXC_ERR"));
    EXPECT_THAT(c->message, HasSubstr("vendor err 129"));
    EXPECT_THAT(c->subject, HasSubstr("10.3.0.18"));
    EXPECT_EQ(analyzeFixture("ib_completion_error.log").facts().inter_node_transport, "RoCE");
  }
  {
    auto f = analyzeFixture("connection_closed.log").findings();
    const Finding* c = find(f, "nccl-connection-closed");
    ASSERT_NE(c, nullptr);
    EXPECT_THAT(c->message, HasSubstr("w-7.job.svc"));
  }
  {
    auto f = analyzeFixture("net_socket.log").findings();
    const Finding* c = find(f, "nccl-net-socket");
    ASSERT_NE(c, nullptr);
    EXPECT_THAT(c->message, HasSubstr("Failed to open libibverbs"));
    EXPECT_EQ(analyzeFixture("net_socket.log").facts().inter_node_transport, "Socket");
    EXPECT_FALSE(analyzeFixture("net_socket.log").facts().gdr.has_value());
  }
  {
    auto f = analyzeFixture("unhandled_error.log").findings();
    const Finding* c = find(f, "nccl-unhandled-error");
    ASSERT_NE(c, nullptr);
    EXPECT_THAT(c->message, HasSubstr("unhandled cuda error"));
  }
  {
    auto f = analyzeFixture("verbs_resource_failed.log").findings();
    const Finding* c = find(f, "nccl-verbs-resource-failed");
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->subject, "ibv_reg_mr");
  }
  {
    auto f = analyzeFixture("qp_connect_failed.log").findings();
    const Finding* c = find(f, "nccl-qp-connect-failed");
    ASSERT_NE(c, nullptr);
    EXPECT_THAT(c->message, HasSubstr("Connection timed out"));
    EXPECT_THAT(ids(f), Not(Contains("nccl-timeout")));
  }
  {
    auto facts = analyzeFixture("no_gdr.log").facts();
    ASSERT_TRUE(facts.gdr.has_value());
    EXPECT_FALSE(*facts.gdr);
    EXPECT_EQ(facts.inter_node_transport, "RoCE");
  }
}

// A fixture fires its own id and is not mistaken for unrelated problems.
TEST(NcclRules, FixturesDoNotCrossFire) {
  struct Pair {
    const char* fixture;
    std::vector<std::string> allowed;
  };
  std::vector<Pair> pairs = {
      {"net_socket.log", {"nccl-net-socket"}},
      {"no_gdr.log", {"nccl-no-gdr"}},
      {"verbs_resource_failed.log", {"nccl-verbs-resource-failed"}},
      {"verbs_open_failed.log", {"nccl-verbs-open-failed"}},
      {"qp_connect_failed.log", {"nccl-qp-connect-failed"}},
      {"ib_completion_error.log", {"nccl-ib-completion-error"}},
      {"proxy_crash.log", {"nccl-proxy-crash", "process-crash"}},  // the proxy's crash kills its process
      {"connection_closed.log", {"nccl-connection-closed"}},
      {"no_interface.log", {"nccl-no-interface"}},
      {"shm_failure.log", {"nccl-shm-failure"}},
      {"timeout.log", {"nccl-timeout"}},
      {"duplicate_gpu.log", {"nccl-duplicate-gpu"}},
      {"version_mismatch.log", {"nccl-version-mismatch"}},
      {"unhandled_error.log", {"nccl-unhandled-error"}},
  };
  for (const auto& p : pairs)
    for (const auto& id : ids(analyzeFixture(p.fixture).findings()))
      EXPECT_THAT(p.allowed, Contains(id)) << p.fixture << " also fired " << id;
}

TEST(NcclRules, UnhandledErrorNamesTheExplainingFinding) {
  NcclLogAnalyzer a("x.log");
  feedText(
      a,
      "h:1:1 [0] misc/ibvwrap.cc:212 NCCL WARN Call to ibv_open_device failed\n"
      "h:1:1 [0] NCCL INFO NET/IB : No device found.\n"
      "RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:825, unhandled system error, NCCL version 2.7.8\n");
  auto findings = a.findings();
  const Finding* f = find(findings, "nccl-unhandled-error");
  ASSERT_NE(f, nullptr);
  EXPECT_THAT(f->message, HasSubstr("nccl-verbs-open-failed"));
  EXPECT_THAT(f->message, HasSubstr("unhandled system error"));
}

TEST(NcclRules, UnhandledErrorFallsBackToLastWarn) {
  NcclLogAnalyzer a("y.log");
  feedText(a,
           "h:1:1 [0] enqueue.cc:12 NCCL WARN Cuda failure 'invalid device function'\n"
           "h:1:1 [0] NCCL INFO enqueue.cc:20 -> 1\n"
           "NCCL failure all_reduce.cu:44 'unhandled cuda error'\n");
  auto findings = a.findings();
  const Finding* f = find(findings, "nccl-unhandled-error");
  ASSERT_NE(f, nullptr);
  EXPECT_THAT(f->message, HasSubstr("invalid device function"));
}

TEST(NcclJob, VersionMismatchAcrossFiles) {
  NcclLogAnalyzer a("rank0.log"), b("rank1.log");
  feedText(a, "n1:1:1 [0] NCCL INFO NCCL version 2.18.1+cuda12.1\nn1:1:2 [0] NCCL INFO Using network IB\n");
  feedText(b, "n2:1:1 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\nn2:1:2 [0] NCCL INFO Using network IB\n");
  EXPECT_EQ(find(a.findings(), "nccl-version-mismatch"), nullptr);
  auto job = combineJob({&a, &b});
  const Finding* f = find(job.findings, "nccl-version-mismatch");
  ASSERT_NE(f, nullptr);
  EXPECT_THAT(f->message, HasSubstr("2.18.1"));
  EXPECT_THAT(f->message, HasSubstr("2.21.5"));
  EXPECT_EQ(f->evidence.size(), 2u);
  EXPECT_EQ(job.facts["host_count"], 2);
  EXPECT_EQ(job.facts["files"], 2);
}

TEST(NcclJob, SocketAcrossHostsFiresJobWide) {
  NcclLogAnalyzer a("w0.log"), b("w1.log");
  feedText(a, "w0:1:1 [0] NCCL INFO NET/IB : No device found.\nw0:1:1 [0] NCCL INFO Using network Socket\n");
  feedText(b, "w1:1:1 [0] NCCL INFO NET/IB : No device found.\nw1:1:1 [0] NCCL INFO Using network Socket\n");
  EXPECT_EQ(find(a.findings(), "nccl-net-socket"), nullptr);  // one host alone: not inter-node
  auto job = combineJob({&a, &b});
  EXPECT_NE(find(job.findings, "nccl-net-socket"), nullptr);
  EXPECT_EQ(job.facts["inter_node_transport"], "Socket");
}

TEST(NcclJob, HealthyFilesGiveNoJobFinding) {
  NcclLogAnalyzer a("a.log"), b("b.log");
  auto text = testutil::readFile((railkit::testing::fixturesDir() / "logs/nccl/healthy_ib.log").string());
  feedText(a, text);
  feedText(b, text);
  auto job = combineJob({&a, &b});
  EXPECT_TRUE(job.findings.empty());
  EXPECT_EQ(job.facts["gdr"], true);
  EXPECT_EQ(job.facts["ranks"], 4);
}

}  // namespace
}  // namespace railkit::logs
