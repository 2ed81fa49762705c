// The /metrics text of `railkit exporter` from NodeBuilder trees: exact lines,
// the 4x scaling of IB data counters, skipped and counted counter files.
#include "exporter/metrics.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/file_root.h"
#include "exporter/exposition.h"
#include "exporter/families.h"
#include "k8s/render/exporter.h"
#include "support/node_builder.h"
#include "support/test_support.h"

namespace fs = std::filesystem;
using railkit::FileRoot;
using railkit::Finding;
using railkit::Severity;
using railkit::testing::NodeBuilder;
namespace ex = railkit::exporter;

namespace {

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

bool hasLine(const std::string& text, const std::string& line) {
  for (const auto& l : lines(text))
    if (l == line) return true;
  return false;
}

// Sample lines whose metric name is `name` (labels and value follow).
std::vector<std::string> samples(const std::string& text, const std::string& name) {
  std::vector<std::string> out;
  for (const auto& l : lines(text))
    if (l.rfind(name + "{", 0) == 0 || l.rfind(name + " ", 0) == 0) out.push_back(l);
  return out;
}

class ExporterMetrics : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = railkit::testing::freshTestDir("rk-exporter"); }
  void TearDown() override { fs::remove_all(dir_); }

  std::string render(const NodeBuilder& node, const std::vector<Finding>& findings = {},
                     uint64_t* read_errors = nullptr) {
    node.write(dir_);
    auto reading = ex::readNode(FileRoot(dir_));
    EXPECT_TRUE(reading.has_value());
    if (!reading) return "";
    if (read_errors) *read_errors = reading->read_errors;
    ex::ExporterStats stats;
    stats.read_errors_total = reading->read_errors;
    return ex::renderMetrics(*reading, findings, stats);
  }

  static NodeBuilder withCounters() {
    auto node = NodeBuilder::healthyDgxH100();
    auto& port = node.port("mlx5_0", 1);
    port.counters = {{"port_xmit_data", "1000\n"}, {"port_rcv_data", "250\n"}, {"symbol_error", "3\n"},
                     {"link_downed", "1\n"},       {"port_rcv_errors", "2\n"}, {"port_xmit_wait", "77\n"}};
    port.hw_counters = {
        {"np_cnp_sent", "5\n"}, {"rp_cnp_handled", "6\n"}, {"out_of_sequence", "0\n"}, {"lifespan", "10\n"}};
    return node;
  }

  fs::path dir_;
};

TEST(ExporterExposition, EscapesLabelValuesAndRepairsUtf8) {
  EXPECT_EQ(ex::escapeLabelValue("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
  EXPECT_EQ(ex::escapeLabelValue("mlx5_0"), "mlx5_0");
  EXPECT_EQ(ex::escapeLabelValue("caf\xc3\xa9"), "caf\xc3\xa9");
  EXPECT_EQ(ex::escapeLabelValue("x\xffy"), "x\xef\xbf\xbdy");
  EXPECT_EQ(ex::escapeLabelValue("\xc3"), "\xef\xbf\xbd");                  // cut short
  EXPECT_EQ(ex::escapeLabelValue("\xc0\xaf"), "\xef\xbf\xbd\xef\xbf\xbd");  // overlong '/'
}

TEST(ExporterExposition, FormatsValuesAsPrometheusReadsThem) {
  EXPECT_EQ(ex::formatValue(5e10), "50000000000");
  EXPECT_EQ(ex::formatValue(0.25), "0.25");
  EXPECT_EQ(ex::formatValue(uint64_t{18446744073709551615ull}), "18446744073709551615");
  EXPECT_EQ(ex::formatValue(1e300), "1e+300");
}

TEST(ExporterExposition, SamplesFollowTheirFamily) {
  ex::Exposition out;
  out.family(ex::MetricFamily{"a_total", "counter", "k,q", "Help with \\ and\nnewline."});
  out.sample({{"k", "v"}, {"q", "\""}}, "1");
  out.sample({}, "2");
  EXPECT_EQ(out.text(),
            "# HELP a_total Help with \\\\ and\\nnewline.\n# TYPE a_total counter\n"
            "a_total{k=\"v\",q=\"\\\"\"} 1\na_total 2\n");
}

TEST(ExporterCounters, ParsesOnlyPlainNumbers) {
  EXPECT_EQ(ex::parseCounterValue("123\n"), 123u);
  EXPECT_EQ(ex::parseCounterValue("18446744073709551615"), 18446744073709551615ull);
  EXPECT_FALSE(ex::parseCounterValue(""));
  EXPECT_FALSE(ex::parseCounterValue("-1"));
  EXPECT_FALSE(ex::parseCounterValue("12a"));
  EXPECT_FALSE(ex::parseCounterValue("+5"));
  EXPECT_FALSE(ex::parseCounterValue("18446744073709551616"));  // 2^64
}

TEST(ExporterCounters, StateNumberIsTheNumberBeforeTheColon) {
  EXPECT_EQ(ex::parseStateNumber("4: ACTIVE\n"), 4u);
  EXPECT_EQ(ex::parseStateNumber("5: LinkUp"), 5u);
  EXPECT_EQ(ex::parseStateNumber(" 3 : Disabled"), 3u);
  EXPECT_EQ(ex::parseStateNumber("7: Phy Test"), 7u);
  EXPECT_FALSE(ex::parseStateNumber("ACTIVE"));
  EXPECT_FALSE(ex::parseStateNumber(": ACTIVE"));
  EXPECT_FALSE(ex::parseStateNumber("x4: ACTIVE"));
  EXPECT_FALSE(ex::parseStateNumber("-1: DOWN"));
  EXPECT_FALSE(ex::parseStateNumber(""));
}

TEST_F(ExporterMetrics, PortFactsOfAHealthyNode) {
  auto node = NodeBuilder::healthyDgxH100();
  node.setPortState("mlx5_3", 1, "1: DOWN", "3: Disabled");
  std::string text = render(node);
  EXPECT_TRUE(hasLine(text,
                      "railkit_rdma_port_info{device=\"mlx5_0\",port=\"1\",link_layer=\"InfiniBand\","
                      "netdev=\"ib0\",fw_ver=\"28.39.1002\"} 1"))
      << text;
  EXPECT_TRUE(hasLine(text, "railkit_rdma_port_up{device=\"mlx5_0\",port=\"1\"} 1"));
  EXPECT_TRUE(hasLine(text, "railkit_rdma_port_up{device=\"mlx5_3\",port=\"1\"} 0"));
  // 400 Gb/s = 50 GB/s.
  EXPECT_TRUE(
      hasLine(text, "railkit_rdma_port_rate_bytes_per_second{device=\"mlx5_0\",port=\"1\"} 50000000000"));
  EXPECT_EQ(samples(text, "railkit_rdma_port_up").size(), 8u);
  // The numbers of the state files, as node_exporter's state_id and physical_state_id.
  EXPECT_TRUE(hasLine(text, "railkit_rdma_port_state{device=\"mlx5_0\",port=\"1\"} 4"));
  EXPECT_TRUE(hasLine(text, "railkit_rdma_port_physical_state{device=\"mlx5_0\",port=\"1\"} 5"));
  EXPECT_TRUE(hasLine(text, "railkit_rdma_port_state{device=\"mlx5_3\",port=\"1\"} 1"));
  EXPECT_TRUE(hasLine(text, "railkit_rdma_port_physical_state{device=\"mlx5_3\",port=\"1\"} 3"));
  EXPECT_EQ(samples(text, "railkit_rdma_port_state").size(), 8u);
  // No port has counter files here: no counter samples and no errors.
  EXPECT_TRUE(samples(text, "railkit_rdma_port_transmitted_bytes_total").empty());
  EXPECT_TRUE(hasLine(text, "railkit_exporter_read_errors_total 0"));
}

TEST_F(ExporterMetrics, RoceLinkLayerAndNetdev) {
  auto node = NodeBuilder::healthyRoce();
  node.port("mlx5_1", 1).state = "1: DOWN";
  std::string text = render(node);
  auto info = samples(text, "railkit_rdma_port_info");
  ASSERT_FALSE(info.empty());
  EXPECT_NE(info[0].find("link_layer=\"Ethernet\""), std::string::npos) << info[0];
  EXPECT_EQ(info[0].find("netdev=\"\""), std::string::npos) << info[0];
  EXPECT_TRUE(hasLine(text, "railkit_rdma_port_up{device=\"mlx5_1\",port=\"1\"} 0"));
}

TEST_F(ExporterMetrics, CountersAreExactAndDataIsFourOctetWords) {
  uint64_t errors = 99;
  std::string text = render(withCounters(), {}, &errors);
  const std::string port = "{device=\"mlx5_0\",port=\"1\"}";
  EXPECT_TRUE(hasLine(text, "railkit_rdma_port_transmitted_bytes_total" + port + " 4000")) << text;
  EXPECT_TRUE(hasLine(text, "railkit_rdma_port_received_bytes_total" + port + " 1000"));
  EXPECT_TRUE(hasLine(text, "railkit_rdma_port_symbol_errors_total" + port + " 3"));
  EXPECT_TRUE(hasLine(text, "railkit_rdma_port_link_downed_total" + port + " 1"));
  EXPECT_TRUE(hasLine(text, "railkit_rdma_port_receive_errors_total" + port + " 2"));
  EXPECT_TRUE(hasLine(text, "railkit_rdma_port_transmit_wait_total" + port + " 77"));
  EXPECT_EQ(samples(text, "railkit_rdma_hw_events_total"),
            (std::vector<std::string>{
                "railkit_rdma_hw_events_total{device=\"mlx5_0\",port=\"1\",counter=\"np_cnp_sent\"} 5",
                "railkit_rdma_hw_events_total{device=\"mlx5_0\",port=\"1\",counter=\"out_of_sequence\"} 0",
                "railkit_rdma_hw_events_total{device=\"mlx5_0\",port=\"1\",counter=\"rp_cnp_handled\"} 6"}));
  EXPECT_EQ(errors, 0u);
  // Only mlx5_0 has counters.
  EXPECT_EQ(samples(text, "railkit_rdma_port_symbol_errors_total").size(), 1u);
}

TEST_F(ExporterMetrics, ExtendedCountersOfOldKernelsWin) {
  auto node = withCounters();
  node.port("mlx5_0", 1).counters_ext = {{"port_xmit_data_64", "8589934592\n"},
                                         {"port_rcv_data_64", "4294967296\n"}};
  std::string text = render(node);
  EXPECT_TRUE(
      hasLine(text, "railkit_rdma_port_transmitted_bytes_total{device=\"mlx5_0\",port=\"1\"} 34359738368"))
      << text;
  EXPECT_TRUE(
      hasLine(text, "railkit_rdma_port_received_bytes_total{device=\"mlx5_0\",port=\"1\"} 17179869184"));
}

// Every file of counters/ the kernel shows, each with its own value, as the
// metric it becomes (node_exporter's infiniband collector has each of them).
TEST_F(ExporterMetrics, EveryIbPortCounterIsServed) {
  const std::vector<std::pair<std::string, std::string>> metric_of = {
      {"port_xmit_data", "railkit_rdma_port_transmitted_bytes_total"},
      {"port_rcv_data", "railkit_rdma_port_received_bytes_total"},
      {"symbol_error", "railkit_rdma_port_symbol_errors_total"},
      {"link_downed", "railkit_rdma_port_link_downed_total"},
      {"port_rcv_errors", "railkit_rdma_port_receive_errors_total"},
      {"port_xmit_wait", "railkit_rdma_port_transmit_wait_total"},
      {"port_xmit_packets", "railkit_rdma_port_transmitted_packets_total"},
      {"port_rcv_packets", "railkit_rdma_port_received_packets_total"},
      {"unicast_xmit_packets", "railkit_rdma_port_transmitted_unicast_packets_total"},
      {"unicast_rcv_packets", "railkit_rdma_port_received_unicast_packets_total"},
      {"multicast_xmit_packets", "railkit_rdma_port_transmitted_multicast_packets_total"},
      {"multicast_rcv_packets", "railkit_rdma_port_received_multicast_packets_total"},
      {"port_xmit_discards", "railkit_rdma_port_transmit_discards_total"},
      {"link_error_recovery", "railkit_rdma_port_link_error_recovery_total"},
      {"local_link_integrity_errors", "railkit_rdma_port_local_link_integrity_errors_total"},
      {"excessive_buffer_overrun_errors", "railkit_rdma_port_excessive_buffer_overrun_errors_total"},
      {"VL15_dropped", "railkit_rdma_port_vl15_dropped_total"},
      {"port_xmit_constraint_errors", "railkit_rdma_port_transmit_constraint_errors_total"},
      {"port_rcv_constraint_errors", "railkit_rdma_port_receive_constraint_errors_total"},
      {"port_rcv_remote_physical_errors", "railkit_rdma_port_receive_remote_physical_errors_total"},
      {"port_rcv_switch_relay_errors", "railkit_rdma_port_receive_switch_relay_errors_total"}};
  auto node = NodeBuilder::healthyDgxH100();
  auto& port = node.port("mlx5_2", 1);
  for (size_t i = 0; i < metric_of.size(); ++i)
    port.counters.push_back({metric_of[i].first, std::to_string(100 + i) + "\n"});
  uint64_t errors = 99;
  std::string text = render(node, {}, &errors);
  EXPECT_EQ(errors, 0u);
  for (size_t i = 0; i < metric_of.size(); ++i) {
    // The data counters are 4-octet words: the byte metrics are 4x.
    uint64_t value = (i < 2 ? 4 : 1) * (100 + i);
    EXPECT_EQ(samples(text, metric_of[i].second),
              std::vector<std::string>{metric_of[i].second + "{device=\"mlx5_2\",port=\"1\"} " +
                                       std::to_string(value)})
        << metric_of[i].first;
    EXPECT_NE(text.find("# TYPE " + metric_of[i].second + " counter\n"), std::string::npos);
  }
  EXPECT_EQ(ex::ibPortCounters().size(), metric_of.size());
}

// mlx4 and hfi1 have no unicast_*/multicast_* files (no extended
// PortCounters): those series are absent and nothing counts as an error.
TEST_F(ExporterMetrics, CountersADeviceLacksAreAbsentNotErrors) {
  auto node = withCounters();
  uint64_t errors = 99;
  std::string text = render(node, {}, &errors);
  EXPECT_EQ(errors, 0u);
  EXPECT_TRUE(samples(text, "railkit_rdma_port_transmitted_unicast_packets_total").empty());
  EXPECT_TRUE(samples(text, "railkit_rdma_port_transmit_discards_total").empty());
  // The family is still declared, so a query or a dashboard finds its name.
  EXPECT_NE(text.find("# TYPE railkit_rdma_port_transmit_discards_total counter\n"), std::string::npos);
}

// counters_ext/ of kernels before 4.6 also holds 64-bit packet counters,
// under its own names; they win over the 32-bit ones in counters/.
TEST_F(ExporterMetrics, ExtendedPacketCountersOfOldKernelsWin) {
  auto node = withCounters();
  auto& port = node.port("mlx5_0", 1);
  port.counters.push_back({"port_xmit_packets", "4294967295\n"});
  port.counters.push_back({"unicast_rcv_packets", "17\n"});
  port.counters_ext = {{"port_xmit_packets_64", "6000000000\n"},
                       {"port_unicast_rcv_packets", "7000000000\n"},
                       {"port_multicast_xmit_packets", "junk\n"}};
  uint64_t errors = 0;
  std::string text = render(node, {}, &errors);
  const std::string p = "{device=\"mlx5_0\",port=\"1\"}";
  EXPECT_TRUE(hasLine(text, "railkit_rdma_port_transmitted_packets_total" + p + " 6000000000")) << text;
  EXPECT_TRUE(hasLine(text, "railkit_rdma_port_received_unicast_packets_total" + p + " 7000000000"));
  // counters_ext has no port_xmit_data_64 here: the data still comes from counters/.
  EXPECT_TRUE(hasLine(text, "railkit_rdma_port_transmitted_bytes_total" + p + " 4000"));
  EXPECT_TRUE(samples(text, "railkit_rdma_port_transmitted_multicast_packets_total").empty());
  EXPECT_EQ(errors, 1u);
}

TEST_F(ExporterMetrics, HugeWordCountsDoNotWrap) {
  auto node = withCounters();
  node.port("mlx5_0", 1).counters[0].second = "18446744073709551615\n";
  std::string text = render(node);
  auto tx = samples(text, "railkit_rdma_port_transmitted_bytes_total");
  ASSERT_EQ(tx.size(), 1u);
  EXPECT_EQ(tx[0],
            "railkit_rdma_port_transmitted_bytes_total{device=\"mlx5_0\",port=\"1\"} 7.378697629483821e+19");
}

TEST_F(ExporterMetrics, BadCounterFilesAreSkippedAndCounted) {
  auto node = withCounters();
  auto& port = node.port("mlx5_0", 1);
  // One not a number, one far too long to be a counter, one empty; two of
  // the six not listed at all (a device without them: no series, no error).
  port.counters = {{"port_xmit_data", "1000\n"},
                   {"port_rcv_data", "junk\n"},
                   {"symbol_error", std::string(200, '1')},
                   {"port_xmit_wait", "4\n"}};
  port.hw_counters.push_back({"rnr_nak_retry_err", ""});
  uint64_t errors = 0;
  std::string text = render(node, {}, &errors);
  EXPECT_EQ(errors, 3u);
  EXPECT_TRUE(hasLine(text, "railkit_exporter_read_errors_total 3"));
  EXPECT_TRUE(hasLine(text, "railkit_rdma_port_transmitted_bytes_total{device=\"mlx5_0\",port=\"1\"} 4000"));
  EXPECT_TRUE(hasLine(text, "railkit_rdma_port_transmit_wait_total{device=\"mlx5_0\",port=\"1\"} 4"));
  EXPECT_TRUE(samples(text, "railkit_rdma_port_received_bytes_total").empty());
  EXPECT_TRUE(samples(text, "railkit_rdma_port_symbol_errors_total").empty());
  EXPECT_TRUE(samples(text, "railkit_rdma_port_link_downed_total").empty());
  EXPECT_EQ(samples(text, "railkit_rdma_hw_events_total").size(), 3u);
}

TEST_F(ExporterMetrics, FindingsAndTheirCounts) {
  std::vector<Finding> findings(3);
  findings[0].id = "memlock-limit";
  findings[0].severity = Severity::kError;
  findings[0].subject = "process";
  findings[1].id = "rdma-port-down";
  findings[1].severity = Severity::kWarning;
  findings[1].subject = "mlx5_\"5\":1";
  findings[2].id = "rdma-port-down";
  findings[2].severity = Severity::kWarning;
  findings[2].subject = "mlx5_6:1";
  std::string text = render(NodeBuilder::healthyDgxH100(), findings);
  EXPECT_EQ(
      samples(text, "railkit_doctor_finding"),
      (std::vector<std::string>{
          "railkit_doctor_finding{id=\"memlock-limit\",severity=\"error\",subject=\"process\"} 1",
          "railkit_doctor_finding{id=\"rdma-port-down\",severity=\"warning\",subject=\"mlx5_\\\"5\\\":1\"} 1",
          "railkit_doctor_finding{id=\"rdma-port-down\",severity=\"warning\",subject=\"mlx5_6:1\"} 1"}));
  EXPECT_EQ(samples(text, "railkit_doctor_findings"),
            (std::vector<std::string>{"railkit_doctor_findings{severity=\"error\"} 1",
                                      "railkit_doctor_findings{severity=\"warning\"} 2",
                                      "railkit_doctor_findings{severity=\"info\"} 0"}));
}

TEST_F(ExporterMetrics, GpuNicDistance) {
  std::string text = render(NodeBuilder::healthyDgxH100());
  // Each NIC shares a PCIe switch with one GPU: PIX.
  EXPECT_TRUE(hasLine(text, "railkit_gpu_nic_distance{gpu=\"gpu0\",device=\"mlx5_0\"} 0")) << text;
  EXPECT_EQ(samples(text, "railkit_gpu_nic_distance").size(), 64u);
  auto far = NodeBuilder::healthyDgxH100();
  far.moveNicFar("mlx5_0");
  std::string moved = render(far);
  EXPECT_FALSE(hasLine(moved, "railkit_gpu_nic_distance{gpu=\"gpu0\",device=\"mlx5_0\"} 0"));
  EXPECT_TRUE(hasLine(moved, "railkit_gpu_nic_distance{gpu=\"gpu0\",device=\"mlx5_0\"} 4")) << moved;
}

// Label names of a sample line, in order: name{a="x",b="y"} 1 -> a,b.
std::string labelNames(const std::string& line) {
  std::string out;
  auto open = line.find('{');
  if (open == std::string::npos || line.find(' ') < open) return out;
  for (size_t at = open + 1; at < line.size() && line[at] != '}';) {
    auto eq = line.find("=\"", at);
    if (eq == std::string::npos) break;
    out += (out.empty() ? "" : ",") + line.substr(at, eq - at);
    at = eq + 2;
    while (at < line.size() && line[at] != '"') at += line[at] == '\\' ? 2 : 1;
    if (at + 1 >= line.size()) break;  // no closing quote: not a sample line
    at += line[at + 1] == ',' ? 2 : 1;
  }
  return out;
}

TEST(ExporterLabels, NamesInOrder) {
  EXPECT_EQ(labelNames(R"(a{device="m\"x",port="1"} 3)"), "device,port");
  EXPECT_EQ(labelNames("a 3"), "");
  EXPECT_EQ(labelNames(R"(a{device="unterminated)"), "device");
}

// The rendering of a node with every family in it: each IB counter file,
// hw_counters, PFC pause frames, a finding and a pod's namespace.
TEST_F(ExporterMetrics, EveryFamilyServedIsTheOneDeclared) {
  auto node = withCounters();
  node.port("mlx5_0", 1).counters.clear();
  for (const auto& c : ex::ibPortCounters()) node.port("mlx5_0", 1).counters.push_back({c.file, "7\n"});
  node.setLiveJson(R"({"pfc_pause": {"ibp12s0": [{"priority": 3, "direction": "rx", "frames": 12}]}})");
  node.write(dir_);
  auto reading = ex::readNode(FileRoot(dir_));
  ASSERT_TRUE(reading.has_value());
  reading->pods = ex::PodsReading{};
  reading->pods->with_rdma.push_back(
      ex::PodNetns{1, "uid", 1, {ex::PodPort{"mlx5_3", 1, {{"rx_write_requests", 2}}}}});
  Finding finding;
  finding.id = "x";
  finding.subject = "y";
  std::string text = ex::renderMetrics(*reading, {finding}, ex::ExporterStats{});

  std::vector<std::string> served;
  const ex::MetricFamily* current = nullptr;
  auto declared = ex::metricFamilies();
  for (const auto& l : lines(text)) {
    if (l.rfind("# HELP ", 0) == 0) continue;
    if (l.rfind("# TYPE ", 0) == 0) {
      served.push_back(l.substr(7, l.find(' ', 7) - 7));
      current = nullptr;
      for (const auto& f : declared)
        if (f.name == served.back()) current = &f;
      ASSERT_NE(current, nullptr) << served.back() << " is served but not declared in exporter/families.h";
      continue;
    }
    ASSERT_NE(current, nullptr) << "a sample before any # TYPE: " << l;
    EXPECT_EQ(l.substr(0, l.find_first_of("{ ")), current->name) << "outside its family: " << l;
    EXPECT_EQ(labelNames(l), current->labels) << l;
  }
  std::vector<std::string> names;
  for (const auto& f : declared) names.emplace_back(f.name);
  EXPECT_EQ(served, names) << "/metrics serves each declared family once, in the order declared";
  for (const auto& f : declared) EXPECT_FALSE(samples(text, std::string(f.name)).empty()) << f.name;
}

}  // namespace

namespace {

// Every railkit_* name in `text` (a dashboard's or rule file's queries).
std::set<std::string> metricNames(const std::string& text) {
  std::set<std::string> out;
  static const std::regex name("railkit_[a-z0-9_]+");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), name); it != std::sregex_iterator(); ++it) {
    out.insert(it->str());
  }
  return out;
}

}  // namespace

// The shipped Grafana dashboard and the rendered alerts query only metrics
// the exporter serves (a renamed metric would leave a panel or alert empty).
TEST_F(ExporterMetrics, DashboardAndAlertsQueryServedMetrics) {
  auto node = withCounters();
  node.port("mlx5_0", 1).hw_counters.push_back({"np_ecn_marked_roce_packets", "1\n"});
  Finding finding;
  finding.id = "memlock-limit";
  finding.severity = Severity::kError;
  finding.subject = "process";
  std::string text = render(node, {finding});
  std::ifstream in(fs::path(RAILKIT_SOURCE_DIR) / "docs/exporter/railkit-dashboard.json");
  auto dashboard = nlohmann::json::parse(in, nullptr, false);
  ASSERT_TRUE(dashboard.is_object()) << "docs/exporter/railkit-dashboard.json is not JSON";
  std::string queries;
  ASSERT_FALSE(dashboard["panels"].empty());
  for (const auto& panel : dashboard["panels"]) {
    ASSERT_TRUE(panel.contains("targets")) << panel.dump();
    for (const auto& target : panel["targets"]) queries += target.value("expr", "") + "\n";
  }
  queries += railkit::k8s::render::exporterRuleFile({});
  auto names = metricNames(queries);
  ASSERT_GE(names.size(), 10u);
  for (const auto& name : names) {
    EXPECT_NE(text.find("# TYPE " + name + " "), std::string::npos) << name << " is queried but not served";
  }
}

// PFC pause frames of a RoCE netdev, as live.json carries them (ethtool
// statistics read live by snapshot or the exporter without --root).
TEST_F(ExporterMetrics, PfcPauseFramesFromLiveJson) {
  auto node = NodeBuilder::healthyRoce();
  node.setLiveJson(R"({"pfc_pause": {"ens0f0np0": [{"priority": 3, "direction": "rx", "frames": 12},
                                                   {"priority": 3, "direction": "tx", "frames": 0}],
                                     "ens1f0np0": [{"priority": 9, "direction": "rx", "frames": 1},
                                                   {"priority": 4, "direction": "up", "frames": 1}]}})");
  std::string text = render(node);
  auto lines = samples(text, "railkit_netdev_pfc_pause_frames_total");
  EXPECT_EQ(
      lines,
      (std::vector<std::string>{
          R"(railkit_netdev_pfc_pause_frames_total{netdev="ens0f0np0",priority="3",direction="rx"} 12)",
          R"(railkit_netdev_pfc_pause_frames_total{netdev="ens0f0np0",priority="3",direction="tx"} 0)"}));
  EXPECT_NE(text.find("# TYPE railkit_netdev_pfc_pause_frames_total counter"), std::string::npos);
}
