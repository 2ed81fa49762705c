// The real NCCL logs in ../shared/data/nccl-logs against expect.json: the
// accepted inter_node_transport values, gdr, findings that must and must not
// fire. One test case per log.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "logs/nccl_log.h"
#include "nccl_log_test_util.h"
#include "support/test_support.h"

namespace railkit::logs {
namespace {

std::filesystem::path logsDir() {
  return railkit::testing::sharedDir() / "data" / "nccl-logs";
}

nlohmann::json expectations() {
  std::ifstream in(logsDir() / "expect.json");
  return nlohmann::json::parse(in);
}

TEST(NcclSharedLogs, MatchExpectJson) {
  RAILKIT_REQUIRE_SHARED();
  auto expect = expectations();
  ASSERT_FALSE(expect.empty());
  for (const auto& [name, want] : expect.items()) {
    SCOPED_TRACE(name);
    NcclLogAnalyzer analyzer(name);
    testutil::feedText(analyzer, testutil::readFile((logsDir() / name).string()));
    auto facts = analyzer.facts();
    auto got = testutil::ids(analyzer.findings());
    std::vector<std::string> accept = want["transport_accept"];
    EXPECT_THAT(accept, ::testing::Contains(facts.inter_node_transport)) << "inter_node_transport";
    if (want["gdr"].is_null())
      EXPECT_FALSE(facts.gdr.has_value()) << "gdr should be null";
    else
      EXPECT_EQ(facts.gdr, std::optional<bool>(want["gdr"].get<bool>())) << "gdr";
    for (const auto& id : want["must"]) EXPECT_THAT(got, ::testing::Contains(id.get<std::string>()));
    for (const auto& id : want["must_not"])
      EXPECT_THAT(got, ::testing::Not(::testing::Contains(id.get<std::string>())));
    EXPECT_TRUE(analyzer.sawNccl());
  }
}

// Specific facts the logs show that expect.json does not list.
TEST(NcclSharedLogs, FactsAndDetails) {
  RAILKIT_REQUIRE_SHARED();
  auto run = [](const std::string& name) {
    NcclLogAnalyzer a(name);
    testutil::feedText(a, testutil::readFile((logsDir() / name).string()));
    return a;
  };
  {
    auto a = run("002.log");
    auto findings = a.findings();
    const Finding* f = testutil::find(findings, "nccl-ib-completion-error");
    ASSERT_NE(f, nullptr);
    EXPECT_THAT(f->message, ::testing::HasSubstr("IBV_WC_LOC_PROT_ERR"));
    EXPECT_THAT(f->message, ::testing::HasSubstr("vendor err 81"));
    EXPECT_EQ(a.facts().hosts.size(), 3u);
  }
  {
    auto a = run("030.log");
    auto findings = a.findings();
    const Finding* f = testutil::find(findings, "nccl-connection-closed");
    ASSERT_NE(f, nullptr);
    EXPECT_THAT(f->message, ::testing::HasSubstr("dgxh100-3"));
  }
  {
    auto a = run("035.log");
    auto facts = a.facts();
    EXPECT_EQ(facts.inter_node_transport, "AWS Libfabric");
    EXPECT_THAT(facts.net_plugins, ::testing::Contains("aws-ofi-nccl"));
    EXPECT_GE(facts.transports["NET/AWS Libfabric/GDRDMA"], 1u);
    EXPECT_GE(facts.hosts.size(), 2u);
  }
  {
    auto a = run("029.log");
    auto findings = a.findings();
    const Finding* f = testutil::find(findings, "nccl-unhandled-error");
    ASSERT_NE(f, nullptr);
    EXPECT_THAT(f->message, ::testing::HasSubstr("nccl-no-interface"));
  }
  {
    auto facts = run("006.log").facts();
    EXPECT_THAT(facts.nccl_versions, ::testing::Contains("2.20.5+cuda12.4"));
    EXPECT_THAT(facts.cuda_runtime, ::testing::Contains("12.4"));
    EXPECT_THAT(facts.socket_interfaces, ::testing::Contains("eth0:10.45.223.193"));
  }
}

}  // namespace
}  // namespace railkit::logs
