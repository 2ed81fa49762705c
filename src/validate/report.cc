#include "validate/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

#include "core/json_util.h"
#include "core/pair_links.h"
#include "validate/run.h"

namespace railkit::validate {
namespace {

constexpr std::size_t kListEveryNode = 32;

bool hasErrorFinding(const nlohmann::json& node) {
  if (node.contains("report_error")) return true;
  for (const auto& f : node.value("findings", nlohmann::json::array())) {
    if (f.value("severity", std::string()) == "error") return true;
  }
  return false;
}

// FNV-1a 64 of the inventory's compact text: equal inventories have equal
// hashes, so a reader sees which passing nodes are alike without 24 KB each.
std::string inventoryHash(const nlohmann::json& inventory) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : inventory.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return fmt::format("fnv1a64:{:016x}", h);
}

// bench pairs' document with its links as rows (core/pair_links.h) and
// without the rounds, which are roundRobinSchedule(n): at 1024 ranks the
// object form was most of a 45 MB document.
nlohmann::json compactPairs(const nlohmann::json& pairs) {
  if (!pairs.is_object()) return pairs;
  nlohmann::json out = pairs;
  auto links = readPairLinks(pairs);
  out.erase("links");
  out.erase("rounds");
  out["link_rows"] = encodeLinkRows(static_cast<int>(pairs.value("nodes", nlohmann::json::array()).size()),
                                    links ? *links : std::vector<PairLinkEntry>{});
  return out;
}

std::string addressOnly(const std::string& address) {
  auto colon = address.rfind(':');
  return colon == std::string::npos ? address : address.substr(0, colon);
}

}  // namespace

Report::Report(const ValidateConfig& config, int ranks) : ranks_(ranks) {
  const auto& b = config.bench;
  settings_ = {{"backend", b.backend},
               {"bootstrap", b.bootstrap},
               {"data_interface", b.transport_options.data_interface},
               {"control_interface", b.control_interface},
               {"ops", config.ops},
               {"pairs_bytes", config.pairs.bytes},
               {"pairs_iterations", config.pairs.iters},
               {"pairs_fraction", config.pairs.fraction},
               {"min_bytes", b.min_bytes},
               {"max_bytes", b.max_bytes},
               {"iters", b.sweep.iters},
               {"collectives_budget_seconds", config.collectives_budget_seconds},
               {"fail_fast", config.fail_fast}};
}

void Report::setNodes(std::vector<nlohmann::json> reports, std::vector<std::string> labels) {
  nodes_ = std::move(reports);
  labels_ = std::move(labels);
}

int Report::nodesWithErrors() const {
  return static_cast<int>(std::count_if(nodes_.begin(), nodes_.end(), hasErrorFinding));
}

void Report::setFabric(LldpFabricCheck fabric) {
  fabric_ = std::move(fabric.section);
  fabric_failures_ = std::move(fabric.failures);
  notes_.insert(notes_.end(), fabric.notes.begin(), fabric.notes.end());
}

void Report::setOutliers(std::vector<Outlier> outliers) {
  outliers_ = std::move(outliers);
}

void Report::setPeers(const bench::Transport& t) {
  for (std::size_t i = 0; i < nodes_.size() && static_cast<int>(i) < t.size(); ++i) {
    const auto& p = t.peer(static_cast<int>(i));
    nodes_[i]["data_interface"] = p.interface;
    nodes_[i]["data_address"] = addressOnly(p.address);
  }
}

void Report::setPairs(const nlohmann::json& pairs, const std::vector<std::string>& failures) {
  pairs_ = pairs;
  pair_failures_ = failures;
  for (const auto& s : pairs.value("suspect_nodes", nlohmann::json::array()))
    suspect_ranks_.push_back(s.value("rank", -1));
}

void Report::setCollectives(const bench::CollectivesOutcome& outcome, const bench::BenchConfig& c) {
  collectives_ = outcome.results;
  collective_failures_ = outcome.failures;
  if (c.expect_line_rate) {
    line_rate_ = {
        {"fraction", *c.expect_line_rate}, {"nic_gbps", jsonOpt(c.nic_gbps)}, {"source", c.nic_rate_source}};
  }
}

void Report::setSeconds(const std::string& phase, double seconds) {
  seconds_[phase] = seconds;
}

void Report::note(const std::string& line) {
  notes_.push_back(line);
}
void Report::skip(const std::string& why) {
  notes_.push_back(why);
}

void Report::incomplete(int phase, const std::string& why) {
  incomplete_ =
      fmt::format("phase {} ({}) did not finish: {}", phase, phase == 3 ? "links" : "collectives", why);
}

bool Report::failed() const {
  return nodesWithErrors() > 0 || !fabric_failures_.empty() || !outliers_.empty() ||
         !pair_failures_.empty() || !collective_failures_.empty();
}

std::string Report::verdict() const {
  if (!incomplete_.empty()) return "incomplete";
  return failed() ? "fail" : "pass";
}

std::vector<std::string> Report::failures() const {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    if (nodes_[i].contains("report_error"))
      out.push_back(labels_[i] + ": " + nodes_[i]["report_error"].get<std::string>());
    for (const auto& f : nodes_[i].value("findings", nlohmann::json::array())) {
      if (f.value("severity", std::string()) != "error") continue;
      out.push_back(fmt::format("{}: [{}] {}: {}", labels_[i], f.value("id", std::string()),
                                f.value("subject", std::string()), f.value("message", std::string())));
    }
  }
  out.insert(out.end(), fabric_failures_.begin(), fabric_failures_.end());
  for (const auto& line : formatOutliers(outliers_, static_cast<int>(nodes_.size())))
    out.push_back("outlier: " + line);
  out.insert(out.end(), pair_failures_.begin(), pair_failures_.end());
  out.insert(out.end(), collective_failures_.begin(), collective_failures_.end());
  if (!incomplete_.empty()) out.push_back(incomplete_);
  return out;
}

std::string Report::nodeVerdict(std::size_t i) const {
  bool outlier =
      std::any_of(outliers_.begin(), outliers_.end(), [&](const Outlier& o) { return o.host == labels_[i]; });
  bool suspect =
      std::find(suspect_ranks_.begin(), suspect_ranks_.end(), static_cast<int>(i)) != suspect_ranks_.end();
  return hasErrorFinding(nodes_[i]) || outlier || suspect ? "fail" : "pass";
}

nlohmann::json Report::document() const {
  nlohmann::json nodes = nlohmann::json::array();
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    nlohmann::json node = nodes_[i];
    node.erase("attributes");
    node.erase("attribute_labels");
    node["name"] = labels_[i];
    node["verdict"] = nodeVerdict(i);
    // Past kListEveryNode nodes a passing node's inventory (24 KB on a DGX)
    // is its hash: 1024 of them were 25 MB. Failing ones keep theirs.
    if (nodes_.size() > kListEveryNode && node["verdict"] == "pass" && node.contains("inventory")) {
      node["inventory_hash"] = inventoryHash(node["inventory"]);
      node.erase("inventory");
    }
    nodes.push_back(std::move(node));
  }
  nlohmann::json doc{{"verdict", verdict()},
                     {"ranks", ranks_},
                     {"settings", settings_},
                     {"nodes", nodes},
                     {"outliers", outliersToJson(outliers_)},
                     {"pairs", compactPairs(pairs_)},
                     {"collectives", collectives_},
                     {"failures", failures()},
                     {"notes", notes_}};
  // Each phase's own failure lines, so a reader (and the human view) can
  // tell a node's problem from a link's or a collective's.
  doc["phases"] = {
      {"node", {{"nodes_with_errors", nodesWithErrors()}, {"fabric_failures", fabric_failures_}}},
      {"consistency", {{"outliers", outliers_.size()}, {"subnet_plans", subnetPlansToJson(subnet_plans_)}}},
      {"links", {{"ran", !pairs_.is_null()}, {"failures", pair_failures_}}},
      {"collectives", {{"ran", !collectives_.empty()}, {"failures", collective_failures_}}}};
  for (const auto& [phase, seconds] : seconds_) {
    if (phase == "connect") {
      doc["phases"]["links"]["connect_seconds"] = seconds;
    } else {
      doc["phases"][phase]["seconds"] = seconds;
    }
  }
  if (!sizing_.is_null()) doc["phases"]["collectives"]["sizing"] = sizing_;
  if (!line_rate_.is_null()) doc["line_rate"] = line_rate_;
  if (!fabric_.is_null()) doc["fabric"] = fabric_;
  if (!incomplete_.empty()) doc["incomplete"] = incomplete_;
  return doc;
}

namespace {

// One node of the verdict: its line, then what fails on it (error findings,
// a report error, its outliers, its links as the pairs' suspect).
std::string nodeLines(const nlohmann::json& doc, const nlohmann::json& n, const std::string& name,
                      bool pass) {
  const auto& c = n.value("counts", nlohmann::json::object());
  std::string counts;
  if (c.is_object() && c.contains("nics_active")) {
    counts =
        fmt::format("nics {}{} gpus {}{}", c.value("nics_active", 0),
                    c["nics_expected"].is_number() ? fmt::format("/{}", c["nics_expected"].get<int>()) : "",
                    c.value("gpus", 0),
                    c["gpus_expected"].is_number() ? fmt::format("/{}", c["gpus_expected"].get<int>()) : "");
  }
  std::string out = fmt::format("  {:<24} {:<4}  {}\n", name, pass ? "pass" : "FAIL", counts);
  for (const auto& f : n.value("findings", nlohmann::json::array())) {
    if (f.value("severity", std::string()) != "error") continue;
    out += fmt::format("      [{}] {}: {}\n", f.value("id", std::string()), f.value("subject", std::string()),
                       f.value("message", std::string()));
  }
  if (n.contains("report_error")) out += "      " + n["report_error"].get<std::string>() + "\n";
  for (const auto& o : doc["outliers"]) {
    if (o.value("host", std::string()) != name) continue;
    out += fmt::format("      outlier: {} {} (the majority of {} node(s): {})\n",
                       o.value("attribute", std::string()), o.value("value", std::string()),
                       o.value("majority_count", 0), o.value("majority_value", std::string()));
  }
  if (doc["pairs"].is_object()) {
    for (const auto& sn : doc["pairs"].value("suspect_nodes", nlohmann::json::array())) {
      if (sn.value("rank", -1) != n.value("rank", -2)) continue;
      out += fmt::format("      links: suspect node, {} of its {} links slow\n", sn.value("slow_links", 0),
                         sn.value("links", 0));
    }
  }
  return out;
}

// The Ethernet fabric from the nodes' LLDP: its size, the rails by leaves
// (a stray cable marked "<<") and every error and warning.
std::string fabricLines(const nlohmann::json& doc) {
  if (!doc.contains("fabric")) return "";
  const auto& f = doc["fabric"];
  const auto& shape = f.value("fabric", nlohmann::json::object());
  std::string out = fmt::format("\nFabric (LLDP of {} node(s)): {} leaf switch(es), {} rail(s)\n",
                                f.value("nodes_with_lldp", nlohmann::json::array()).size(),
                                shape.value("leaves", 0), shape.value("rails", 0));
  for (const auto& row : f.value("rails", nlohmann::json::array())) {
    std::string leaves;
    for (const auto& c : row.value("leaves", nlohmann::json::array()))
      leaves += fmt::format("  {} ({}){}", c.value("leaf", std::string()), c.value("hcas", 0),
                            c.value("stray", false) ? " <<" : "");
    out += fmt::format("  rail {} {}:{}\n", row.value("rail", 0), row.value("device", std::string()), leaves);
  }
  for (const auto& finding : f.value("findings", nlohmann::json::array())) {
    std::string severity = finding.value("severity", std::string());
    if (severity == "info") continue;
    out += fmt::format("  {}[{}] {}: {}\n", severity == "error" ? "" : severity + " ",
                       finding.value("id", std::string()), finding.value("subject", std::string()),
                       finding.value("message", std::string()));
  }
  return out;
}

}  // namespace

std::string formatVerdict(const nlohmann::json& doc) {
  std::string verdict = doc.value("verdict", std::string("?"));
  std::transform(verdict.begin(), verdict.end(), verdict.begin(),
                 [](unsigned char c) { return std::toupper(c); });
  const auto& nodes = doc["nodes"];
  int failing = 0;
  for (const auto& n : nodes) failing += n.value("verdict", std::string()) == "fail";
  std::string out =
      fmt::format("\nVERDICT: {} ({} of {} node(s) fail)\n\nNodes:\n", verdict, failing, nodes.size());
  // Past kListEveryNode nodes only the failing ones are listed: a 1024-node
  // verdict is read for what is wrong.
  const bool list_passing = nodes.size() <= kListEveryNode;
  if (!list_passing && failing < static_cast<int>(nodes.size())) {
    out += fmt::format("  {} node(s) pass (not listed; --json has every node)\n", nodes.size() - failing);
  }
  for (const auto& n : nodes) {
    std::string name = n.value("name", std::string());
    bool pass = n.value("verdict", std::string()) == "pass";
    if (pass && !list_passing) continue;
    out += nodeLines(doc, n, name, pass);
  }
  out += fabricLines(doc);
  auto phaseFailures = [&](const char* phase) {
    std::string lines;
    if (!doc.contains("phases")) return lines;
    for (const auto& f : doc["phases"][phase].value("failures", nlohmann::json::array())) {
      lines += "  " + f.get<std::string>() + "\n";
    }
    return lines;
  };
  const auto& pairs = doc["pairs"];
  if (pairs.is_object()) {
    auto links = readPairLinks(pairs);
    out += fmt::format("\nLinks: {} pair(s), median {:.2f} Gb/s per direction, {} slow, {} suspect node(s)\n",
                       links ? links->size() : 0, pairs.value("median_gbps", 0.0),
                       pairs.value("slow_links", nlohmann::json::array()).size(),
                       pairs.value("suspect_nodes", nlohmann::json::array()).size());
    out += phaseFailures("links");
  }
  if (!doc["collectives"].empty()) out += "\nCollectives:\n";
  for (const auto& c : doc["collectives"]) {
    const auto& rows = c.value("rows", nlohmann::json::array());
    double last = rows.empty() ? 0 : rows.back()["in_place"].value("busbw_gbs", 0.0);
    out += fmt::format("  {}: busbw {:.2f} GB/s at the largest size, average {:.2f} GB/s{}\n",
                       c.value("op", std::string()), last, c.value("avg_busbw_gbs", 0.0),
                       c.contains("expected_busbw_gbs")
                           ? fmt::format(" (expected at least {:.2f})", c["expected_busbw_gbs"].get<double>())
                           : "");
  }
  out += phaseFailures("collectives");
  if (doc.contains("incomplete")) out += "\nIncomplete: " + doc["incomplete"].get<std::string>() + "\n";
  for (const auto& note : doc.value("notes", nlohmann::json::array()))
    out += "note: " + note.get<std::string>() + "\n";
  return out;
}

}  // namespace railkit::validate
