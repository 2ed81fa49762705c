#pragma once
// A validate document of many nodes, built in code (a 1024-node run is not a
// fixture anyone can record on one machine): every node with counts and
// findings, two distinct GPU-NIC topologies, one consistency outlier, every
// pair of the links phase (n(n-1)/2 links), one slow node whose links are all
// slow, and an all_reduce graded against the NIC bound. Deterministic.
#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <string>

namespace railkit::testing {

inline nlohmann::json syntheticTopology(bool odd) {
  nlohmann::json pairs = nlohmann::json::array();
  for (int g = 0; g < 8; ++g)
    for (int n = 0; n < 8; ++n) {
      const char* d = g == n ? "PIX" : (g / 4 == n / 4 ? "NODE" : "SYS");
      if (odd && g == n && g == 3) d = "SYS";  // one GPU cabled to the far socket's NIC
      pairs.push_back(
          {{"gpu", fmt::format("gpu{}", g)}, {"nic", fmt::format("mlx5_{}", n)}, {"distance", d}});
    }
  return {{"gpu_nic", pairs}, {"source", "synthetic"}};
}

inline nlohmann::json syntheticValidate(int nodes, int slow_node) {
  nlohmann::json doc = {
      {"kind", "railkit.validate/v1"}, {"railkit_version", "0.1.0"}, {"verdict", "fail"}, {"ranks", nodes}};
  nlohmann::json list = nlohmann::json::array(), failures = nlohmann::json::array();
  nlohmann::json topo = syntheticTopology(false), odd = syntheticTopology(true);
  for (int r = 0; r < nodes; ++r) {
    std::string name = fmt::format("node-{:04}", r);
    nlohmann::json findings = nlohmann::json::array();
    if (r % 4 != 0)
      findings.push_back({{"id", "memlock-limit"},
                          {"severity", "error"},
                          {"subject", "process"},
                          {"message", "RLIMIT_MEMLOCK is 65536 bytes"},
                          {"evidence", nlohmann::json::array()},
                          {"fix", "set RLIMIT_MEMLOCK unlimited"}});
    if (r % 97 == 5)
      findings.push_back({{"id", "rdma-port-down"},
                          {"severity", "warning"},
                          {"subject", "mlx5_3:1"},
                          {"message", "port mlx5_3:1 is DOWN"},
                          {"evidence", nlohmann::json::array()},
                          {"fix", "check the cable"}});
    list.push_back(
        {{"rank", r},
         {"host", name},
         {"name", name},
         {"verdict", findings.empty() ? "pass" : "fail"},
         {"findings", findings},
         {"counts",
          {{"nics_active", r % 97 == 5 ? 7 : 8}, {"nics_expected", 8}, {"gpus", 8}, {"gpus_expected", 8}}},
         {"inventory", {{"topology", r % 64 == 7 ? odd : topo}}},
         {"nic_gbps", 3200},
         {"nic_rate_source", "synthetic"},
         {"data_interface", "net1"},
         {"data_address", fmt::format("10.{}.{}.{}", r / 65536, r / 256 % 256, r % 256)}});
  }
  doc["nodes"] = list;
  doc["outliers"] = {{{"attribute", "mlx5_2 firmware"},
                      {"host", "node-0003"},
                      {"value", "28.36.1010"},
                      {"majority_value", "28.39.1002"},
                      {"majority_count", nodes - 1}}};
  nlohmann::json links = nlohmann::json::array(), pair_nodes = nlohmann::json::array();
  for (int r = 0; r < nodes; ++r)
    pair_nodes.push_back({{"rank", r},
                          {"host", fmt::format("node-{:04}", r)},
                          {"interface", "net1"},
                          {"address", fmt::format("10.{}.{}.{}", r / 65536, r / 256 % 256, r % 256)}});
  for (int a = 0; a < nodes; ++a)
    for (int b = a + 1; b < nodes; ++b) {
      bool slow = a == slow_node || b == slow_node;
      double bw = slow ? 97.5 : 380 + (a * 7 + b * 13) % 31;
      links.push_back({{"a", a}, {"b", b}, {"bw_gbps", bw}, {"slow", slow}});
    }
  doc["pairs"] = {{"size_bytes", 1 << 20},
                  {"iterations", 5},
                  {"direction", "bidirectional"},
                  {"nodes", pair_nodes},
                  {"links", links},
                  {"median_gbps", 395.0},
                  {"threshold_gbps", 316.0},
                  {"slow_links", nlohmann::json::array()},
                  {"suspect_nodes",
                   {{{"rank", slow_node},
                     {"host", fmt::format("node-{:04}", slow_node)},
                     {"slow_links", nodes - 1},
                     {"links", nodes - 1}}}}};
  nlohmann::json rows = nlohmann::json::array();
  for (double size = 1024; size <= 8.0 * (1 << 30); size *= 2) {
    double bw = 180.0 * size / (size + 8.0 * (1 << 20));
    rows.push_back(
        {{"op", "all_reduce"},
         {"size_bytes", size},
         {"count", size / 4},
         {"type", "float"},
         {"redop", "sum"},
         {"root", nullptr},
         {"out_of_place", {{"time_us", 1}, {"algbw_gbs", bw / 2}, {"busbw_gbs", bw}, {"wrong", 0}}},
         {"in_place", {{"time_us", 1}, {"algbw_gbs", bw / 2}, {"busbw_gbs", bw * 0.98}, {"wrong", 0}}}});
  }
  doc["collectives"] = {{{"op", "all_reduce"},
                         {"rows", rows},
                         {"wrong", 0},
                         {"avg_busbw_gbs", 97.3},
                         {"expected_busbw_gbs", 320.0}}};
  doc["line_rate"] = {{"fraction", 0.8}, {"nic_gbps", 3200}, {"source", "synthetic"}};
  failures.push_back("node-0001: [memlock-limit] process: RLIMIT_MEMLOCK is 65536 bytes");
  doc["failures"] = failures;
  doc["notes"] = nlohmann::json::array();
  doc["phases"] = nlohmann::json::object();
  return doc;
}

}  // namespace railkit::testing
