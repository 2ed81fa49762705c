// The fleet grid: nodes x checks, each cell the worst severity that check
// found on that node. Nodes whose rows are identical are folded into one row
// (a healthy 1024-node fleet is one line), and the consistency outliers
// follow, each with the value the majority has.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "report/html.h"
#include "report/sections.h"

namespace railkit::report {
namespace {

struct NodeRow {
  std::string name;
  int rank = -1;
  std::string counts;                        // "nics 7/8 gpus 8/8"
  std::map<std::string, std::string> cells;  // check -> worst severity
};

int rank(const std::string& s) {
  return s == "error" ? 0 : s == "warning" ? 1 : s == "info" ? 2 : 3;
}

void addFindings(NodeRow& row, const nlohmann::json& findings) {
  if (!findings.is_array()) return;
  for (const auto& f : findings) {
    std::string id = textAt(f, "id"), sev = textAt(f, "severity");
    auto [it, fresh] = row.cells.emplace(id, sev);
    if (!fresh && rank(sev) < rank(it->second)) it->second = sev;
  }
}

std::string cell(const std::string& severity) {
  if (severity.empty()) return "<td class=\"ok\" title=\"pass\">&#10003;</td>";
  const char* glyph = severity == "error" ? "&#10007;" : severity == "warning" ? "!" : "i";
  return fmt::format("<td class=\"{0}\" title=\"{0}\">{1}</td>", esc(severity), glyph);
}

// A validate document's nodes as rows, its suspect node's links and its
// outliers as checks of their own; the outliers' table rows into `outliers`.
void addValidateRows(const nlohmann::json& doc, std::vector<NodeRow>& rows, std::string& outliers) {
  for (const auto& n : arrayAt(doc, "nodes")) {
    NodeRow row{textAt(n, "name"), intAt(n, "rank", -1), "", {}};
    const auto& c = objectAt(n, "counts");
    if (c.is_object() && !c.empty())
      row.counts = fmt::format("nics {}/{} gpus {}/{}", textAt(c, "nics_active"), textAt(c, "nics_expected"),
                               textAt(c, "gpus"), textAt(c, "gpus_expected"));
    addFindings(row, arrayAt(n, "findings"));
    rows.push_back(std::move(row));
  }
  // The suspect node of the pairs: its fault is its links, a check of its own.
  for (const auto& s : arrayAt(objectAt(doc, "pairs"), "suspect_nodes"))
    for (auto& row : rows)
      if (row.rank >= 0 && row.rank == intAt(s, "rank", -2)) row.cells["links: suspect node"] = "error";
  for (const auto& o : arrayAt(doc, "outliers")) {
    for (auto& row : rows)
      if (row.name == textAt(o, "host") || row.name.rfind(textAt(o, "host") + " (", 0) == 0)
        row.cells["outlier"] = "error";
    outliers += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{} ({} nodes){}</td></tr>\n",
                            esc(textAt(o, "host")), esc(textAt(o, "attribute")), esc(textAt(o, "value")),
                            esc(textAt(o, "majority_value")), esc(textAt(o, "majority_count")),
                            boolAt(o, "tie") ? ", a tie" : "");
  }
}

// The columns: every check that fired somewhere, worst first.
std::vector<std::string> checkColumns(const std::vector<NodeRow>& rows) {
  std::map<std::string, int> worst;
  for (const auto& r : rows)
    for (const auto& [id, sev] : r.cells) {
      auto [it, fresh] = worst.emplace(id, rank(sev));
      if (!fresh) it->second = std::min(it->second, rank(sev));
    }
  std::vector<std::string> checks;
  for (const auto& [id, w] : worst) checks.push_back(id);
  std::stable_sort(checks.begin(), checks.end(),
                   [&](const auto& a, const auto& b) { return worst[a] < worst[b]; });
  return checks;
}

}  // namespace

std::string renderFleet(const Documents& docs) {
  std::vector<NodeRow> rows;
  std::string outliers;
  for (const auto& doc : docs) {
    if (doc.kind == "railkit.validate/v1") {
      addValidateRows(doc.json, rows, outliers);
    } else if (doc.kind == "railkit.doctor/v1") {
      NodeRow row{doc.source, -1, "", {}};  // one file per node: its root is "/" on every live node
      addFindings(row, arrayAt(doc.json, "findings"));
      rows.push_back(std::move(row));
    }
  }
  if (rows.empty()) return "";
  std::vector<std::string> checks = checkColumns(rows);
  // Fold nodes with the same row.
  std::map<std::string, std::vector<const NodeRow*>> folded;
  std::vector<std::string> order;
  for (const auto& r : rows) {
    std::string key = r.counts;
    for (const auto& c : checks) {
      auto it = r.cells.find(c);
      key += "|" + (it == r.cells.end() ? std::string() : it->second);
    }
    auto& list = folded[key];
    if (list.empty()) order.push_back(key);
    list.push_back(&r);
  }
  std::string body = fmt::format(
      "<p>{} node(s) in {} group(s) of identical results; &#10007; error, ! warning, "
      "i info, &#10003; pass.</p>\n<div class=\"scroll\"><table class=\"grid\">"
      "<thead><tr><th>nodes</th><th>counts</th>",
      rows.size(), order.size());
  for (const auto& c : checks) body += fmt::format("<th class=\"check\"><span>{}</span></th>", esc(c));
  body += "</tr></thead><tbody>\n";
  for (const auto& key : order) {
    const auto& list = folded[key];
    std::string names;
    for (size_t i = 0; i < list.size() && i < 8; ++i) names += (i ? ", " : "") + esc(list[i]->name);
    if (list.size() > 8) names += fmt::format(" <i>+{} more</i>", list.size() - 8);
    if (list.size() > 1) names = fmt::format("<b>{} nodes</b>: {}", list.size(), names);
    body += fmt::format("<tr><td>{}</td><td>{}</td>", names, esc(list.front()->counts));
    for (const auto& c : checks) {
      auto it = list.front()->cells.find(c);
      body += cell(it == list.front()->cells.end() ? "" : it->second);
    }
    body += "</tr>\n";
  }
  body += "</tbody></table></div>\n";
  if (!outliers.empty())
    body +=
        "<h3>Consistency outliers</h3>\n<table class=\"numbers\"><thead><tr><th>node</th><th>attribute</th>"
        "<th>its value</th><th>the majority's value</th></tr></thead><tbody>\n" +
        outliers + "</tbody></table>\n";
  return section("fleet", "Fleet", body);
}

}  // namespace railkit::report
