// Rank 0's report: the verdict from each phase's results, node verdicts that
// say why, and the human view (failing nodes only past 32 nodes).
#include "validate/report.h"

#include <gtest/gtest.h>

#include <functional>

#include "core/pair_links.h"
#include "validate/node_report.h"
#include "validate/run.h"

namespace railkit::validate {
namespace {

nlohmann::json nodeReport(int rank, const std::string& host, bool error = false) {
  nlohmann::json findings = nlohmann::json::array();
  if (error) {
    findings.push_back({{"id", "rdma-nic-count"},
                        {"severity", "error"},
                        {"subject", "node"},
                        {"message", "7 of 8 expected active RDMA ports"},
                        {"evidence", nlohmann::json::array()},
                        {"fix", "reseat"}});
  }
  return {
      {"rank", rank},
      {"host", host},
      {"findings", findings},
      {"counts", {{"nics_active", error ? 7 : 8}, {"nics_expected", 8}, {"gpus", 8}, {"gpus_expected", 8}}},
      {"attributes", nlohmann::json::object()}};
}

Report reportOf(int n, const std::vector<int>& with_errors) {
  ValidateConfig config;
  Report report(config, n);
  std::vector<nlohmann::json> nodes;
  std::vector<std::string> labels;
  for (int r = 0; r < n; ++r) {
    bool error = std::find(with_errors.begin(), with_errors.end(), r) != with_errors.end();
    nodes.push_back(nodeReport(r, "node" + std::to_string(r), error));
    labels.push_back("node" + std::to_string(r));
  }
  report.setNodes(nodes, labels);
  return report;
}

TEST(ValidateReport, EveryPhaseCleanPasses) {
  Report report = reportOf(3, {});
  report.setPairs({{"links", nlohmann::json::array()}, {"suspect_nodes", nlohmann::json::array()}}, {});
  EXPECT_EQ(report.verdict(), "pass");
  auto doc = report.document();
  EXPECT_EQ(doc["verdict"], "pass");
  for (const auto& n : doc["nodes"]) EXPECT_EQ(n["verdict"], "pass");
  EXPECT_FALSE(doc["nodes"][0].contains("attributes"));  // compared, not reported
}

TEST(ValidateReport, EachPhaseFailsTheNodeItNames) {
  Report report = reportOf(4, {1});
  report.setOutliers(
      {Outlier{"mlx5_2 firmware", "net3 firmware", "node2", "28.36.1010", "28.39.1002", 3, false}});
  report.setPairs({{"links", nlohmann::json::array()},
                   {"suspect_nodes", {{{"rank", 3}, {"slow_links", 3}, {"links", 3}}}}},
                  {"suspect node r3 (node3): 3 of its 3 links are below 80% of the median"});
  EXPECT_TRUE(report.failed());
  auto doc = report.document();
  EXPECT_EQ(doc["verdict"], "fail");
  std::vector<std::string> verdicts;
  for (const auto& n : doc["nodes"]) verdicts.push_back(n["verdict"]);
  EXPECT_EQ(verdicts, (std::vector<std::string>{"pass", "fail", "fail", "fail"}));
  EXPECT_EQ(doc["phases"]["links"]["failures"].size(), 1u);
  std::string text = formatVerdict(doc);
  EXPECT_NE(text.find("VERDICT: FAIL (3 of 4 node(s) fail)"), std::string::npos) << text;
  EXPECT_NE(text.find("[rdma-nic-count] node: 7 of 8"), std::string::npos) << text;
  EXPECT_NE(text.find("outlier: mlx5_2 firmware 28.36.1010 (the majority of 3 node(s): 28.39.1002)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("links: suspect node, 3 of its 3 links slow"), std::string::npos) << text;
}

TEST(ValidateReport, ALostPeerMakesItIncompleteAndKeepsWhatWasMeasured) {
  Report report = reportOf(3, {});
  report.incomplete(3, "rank 1 gave up: pairs round 1 with rank 2: lost rank 2");
  auto doc = report.document();
  EXPECT_EQ(doc["verdict"], "incomplete");
  EXPECT_NE(doc["incomplete"].get<std::string>().find("phase 3 (links)"), std::string::npos);
  EXPECT_EQ(doc["nodes"].size(), 3u);
  EXPECT_NE(formatVerdict(doc).find("Incomplete: phase 3"), std::string::npos);
}

TEST(ValidateReport, LargeClustersListOnlyFailingNodes) {
  Report report = reportOf(100, {42});
  std::string text = formatVerdict(report.document());
  EXPECT_NE(text.find("99 node(s) pass (not listed"), std::string::npos) << text.substr(0, 300);
  EXPECT_NE(text.find("node42"), std::string::npos);
  EXPECT_EQ(text.find("node41 "), std::string::npos);
}

// A node's inventory about the size of a DGX's (24 KB), different per host.
nlohmann::json inventoryOf(const std::string& host, int devices = 8) {
  nlohmann::json rdma = nlohmann::json::array();
  for (int d = 0; d < devices; ++d)
    rdma.push_back({{"name", "mlx5_" + std::to_string(d)},
                    {"firmware", "28.39.1002"},
                    {"node_guid", "b8ce:f603:00a1:" + std::to_string(1000 + d)},
                    {"ports",
                     {{{"port", 1},
                       {"state", "ACTIVE"},
                       {"rate", "400 Gb/sec (4X NDR)"},
                       {"gids", std::string(2600, 'g')}}}}});
  return {{"hostname", host}, {"rdma_devices", rdma}};
}

TEST(ValidateReport, PastThirtyTwoNodesOnlyFailingNodesKeepTheirInventory) {
  Report report = reportOf(40, {7});
  auto nodes = report.nodes();
  for (auto& n : nodes)
    n["inventory"] = inventoryOf(n["host"] == "node9" ? "node8" : n["host"].get<std::string>());
  std::vector<std::string> labels;
  for (int r = 0; r < 40; ++r) labels.push_back("node" + std::to_string(r));
  report.setNodes(nodes, labels);
  auto doc = report.document();
  EXPECT_EQ(doc["nodes"][7]["inventory"], inventoryOf("node7"));
  EXPECT_FALSE(doc["nodes"][7].contains("inventory_hash"));
  for (int r : {0, 8, 9, 39}) {
    EXPECT_FALSE(doc["nodes"][r].contains("inventory")) << r;
    EXPECT_EQ(doc["nodes"][r]["inventory_hash"].get<std::string>().size(),
              std::string("fnv1a64:").size() + 16);
  }
  EXPECT_EQ(doc["nodes"][8]["inventory_hash"], doc["nodes"][9]["inventory_hash"]);  // same inventory
  EXPECT_NE(doc["nodes"][0]["inventory_hash"], doc["nodes"][8]["inventory_hash"]);

  Report small = reportOf(32, {});
  auto few = small.nodes();
  for (auto& n : few) n["inventory"] = inventoryOf(n["host"]);
  small.setNodes(few, std::vector<std::string>(32, "n"));
  // Held in a variable: a range-for over a member of document()'s temporary would dangle.
  const nlohmann::json small_doc = small.document();
  for (const auto& n : small_doc["nodes"]) EXPECT_TRUE(n.contains("inventory"));
}

// bench pairs' document for n ranks: link (a, b) at 380 to 420 Gb/s, the
// links of `slow_rank` at 1 Gb/s and named as bench names them.
nlohmann::json pairsOf(int n, int slow_rank) {
  nlohmann::json nodes = nlohmann::json::array(), links = nlohmann::json::array(),
                 slow = nlohmann::json::array();
  for (int r = 0; r < n; ++r)
    nodes.push_back({{"rank", r},
                     {"host", "node" + std::to_string(r)},
                     {"interface", "net1"},
                     {"address", "198.18.20." + std::to_string(r % 250)}});
  for (int a = 0; a < n; ++a) {
    for (int b = a + 1; b < n; ++b) {
      bool is_slow = a == slow_rank || b == slow_rank;
      double gbps = is_slow ? 1.0 : 380.0 + (a * 7 + b * 13) % 400 / 10.0;
      links.push_back(
          {{"a", a}, {"b", b}, {"bw_gbps", gbps}, {"time_us", 1342.2 * 400 / gbps}, {"slow", is_slow}});
      if (is_slow) slow.push_back({{"a", a}, {"b", b}, {"bw_gbps", gbps}});
    }
  }
  return {{"size_bytes", 67108864},
          {"iterations", 5},
          {"direction", "bidirectional"},
          {"nodes", nodes},
          {"rounds", nlohmann::json::array()},
          {"links", links},
          {"median_gbps", 400.0},
          {"threshold_gbps", 320.0},
          {"slow_links", slow},
          {"suspect_nodes", {{{"rank", slow_rank}, {"slow_links", n - 1}, {"links", n - 1}}}}};
}

TEST(ValidateReport, LinksAreWrittenAsRowsWithoutTheRoundsAndReadBackWhole) {
  Report report = reportOf(4, {});
  report.setPairs(pairsOf(4, 3), {"suspect node r3"});
  auto doc = report.document();
  const auto& p = doc["pairs"];
  EXPECT_FALSE(p.contains("links"));
  EXPECT_FALSE(p.contains("rounds"));
  ASSERT_EQ(p["link_rows"].size(), 3u);
  EXPECT_EQ(p["link_rows"][2], "1");  // r2-r3
  auto links = readPairLinks(p);
  ASSERT_TRUE(links);
  ASSERT_EQ(links->size(), 6u);
  for (const auto& l : *links) EXPECT_EQ(l.slow, l.b == 3) << l.a << "-" << l.b;
  EXPECT_NE(formatVerdict(doc).find("Links: 6 pair(s), median 400.00 Gb/s per direction, 3 slow"),
            std::string::npos);
}

TEST(ValidateReport, A1024NodeDocumentIsUnderTenMegabytes) {
  constexpr int n = 1024;
  Report report = reportOf(n, {5, 600});
  auto nodes = report.nodes();
  for (auto& node : nodes) node["inventory"] = inventoryOf(node["host"]);
  std::vector<std::string> labels;
  for (int r = 0; r < n; ++r) labels.push_back("node" + std::to_string(r));
  ASSERT_GT(nodes[0]["inventory"].dump().size(), 20000u);
  report.setNodes(nodes, labels);
  report.setPairs(pairsOf(n, 77), {"suspect node r77"});
  auto doc = report.document();
  // What --json-out writes (cli/common.cc prints as dump(2) does).
  std::size_t bytes = doc.dump(2).size();
  EXPECT_LT(bytes, 10u * 1000 * 1000) << bytes;
  int inventories = 0;
  for (const auto& node : doc["nodes"]) inventories += node.contains("inventory");
  EXPECT_EQ(inventories, 3);  // nodes 5, 600 (errors) and 77 (the suspect node)
  auto links = readPairLinks(doc["pairs"]);
  ASSERT_TRUE(links);
  EXPECT_EQ(links->size(), static_cast<std::size_t>(n) * (n - 1) / 2);
}

}  // namespace
}  // namespace railkit::validate

namespace railkit::validate {
namespace {

TEST(ValidateNodeReport, WhatARankSendsReadsBackWhole) {
  NodeInput node;
  node.host = "node7";
  node.nic_gbps = 400;
  node.nic_rate_source = "mlx5_0 rate";
  NodeCheck check;
  check.counts.nics_active = 7;
  check.counts.nics_expected = 8;
  Finding f;
  f.id = "rdma-nic-count";
  f.severity = Severity::kError;
  f.subject = "node";
  f.message = "7 of 8";
  f.evidence = {{"/sys/x", 3, "DOWN"}};
  f.fix = "fix it";
  check.findings.push_back(f);
  auto sent = makeNodeReport(7, node, check);
  auto read = parseNodeReport(sent.dump(), 7);
  ASSERT_FALSE(read.contains("report_error")) << read["report_error"];
  EXPECT_EQ(read["host"], "node7");
  EXPECT_EQ(read["counts"]["nics_active"], 7);
  EXPECT_EQ(read["counts"]["gpus_expected"], nullptr);
  EXPECT_EQ(read["findings"][0]["evidence"][0]["line"], 3);
  EXPECT_EQ(read["nic_gbps"], 400);
}

TEST(ValidateNodeReport, AnythingElseFailsTheNodeNamingThePath) {
  NodeInput node;
  node.host = "n";
  auto good = makeNodeReport(2, node, NodeCheck{});
  struct Case {
    std::string blob;
    std::string says;
  };
  auto with = [&](const std::function<void(nlohmann::json&)>& edit) {
    auto doc = good;
    edit(doc);
    return doc.dump();
  };
  const Case cases[] = {
      {"", "not JSON"},
      {"\x01\xff garbage", "not JSON"},
      {"[1,2]", "expected an object, found array"},
      {with([](auto& d) { d.erase("host"); }), "rank 2 report.host: missing"},
      {with([](auto& d) { d["host"] = 5; }), "rank 2 report.host: expected a string, found number"},
      {with([](auto& d) { d["counts"]["nics_active"] = -1; }),
       "rank 2 report.counts.nics_active: expected a count"},
      {with([](auto& d) { d["counts"]["gpus"] = "8"; }), "rank 2 report.counts.gpus"},
      {with([](auto& d) {
         d["findings"] = {{{"id", "x"}}};
       }),
       "rank 2 report.findings[0].severity: missing"},
      {with([](auto& d) {
         d["findings"] = {{{"id", "x"},
                           {"severity", "fatal"},
                           {"subject", ""},
                           {"message", ""},
                           {"fix", ""},
                           {"evidence", nlohmann::json::array()}}};
       }),
       "findings[0].severity: expected error, warning or info, found 'fatal'"},
      {with([](auto& d) {
         d["attributes"] = {{"mlx5_0 firmware", 1}};
       }),
       "rank 2 report.attributes"},
      {with([](auto& d) { d["inventory"] = "x"; }), "rank 2 report.inventory: expected an object"},
  };
  for (const auto& c : cases) {
    auto read = parseNodeReport(c.blob, 2);
    ASSERT_TRUE(read.contains("report_error")) << c.blob;
    EXPECT_NE(read["report_error"].get<std::string>().find(c.says), std::string::npos)
        << read["report_error"] << " wanted " << c.says;
    EXPECT_EQ(read["rank"], 2);
    EXPECT_TRUE(read["findings"].empty());
  }
  // Such a node fails the run and says why.
  ValidateConfig config;
  Report report(config, 1);
  report.setNodes({parseNodeReport("nope", 0)}, {"rank 0"});
  EXPECT_EQ(report.verdict(), "fail");
  EXPECT_NE(formatVerdict(report.document()).find("not JSON"), std::string::npos);
}

}  // namespace
}  // namespace railkit::validate
