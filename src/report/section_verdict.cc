// The verdict first: pass or fail, what failed, and the findings grouped
// across nodes ("12 of 16 nodes: memlock-limit") with their fix, errors
// first, most widespread first. A 1024-node run with one misconfiguration
// everywhere is one line, not 1024.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "core/pair_links.h"
#include "report/html.h"
#include "report/sections.h"

namespace railkit::report {
namespace {

int severityRank(const std::string& s) {
  return s == "error" ? 0 : s == "warning" ? 1 : 2;
}

struct FindingGroup {
  std::string id, severity = "info", message, fix, unit;
  std::set<std::string> places;  // nodes or files it fired on
};

struct Tally {
  std::map<std::string, FindingGroup> groups;
  std::set<std::string> nodes;      // every node seen (validate nodes, doctor documents)
  std::vector<std::string> failed;  // what made the verdict fail
  size_t failure_lines = 0;
  std::vector<std::string> failures;
  bool judged = false;  // something held an expectation: node checks, a grade, a pairs threshold

  void add(const nlohmann::json& f, const std::string& place, const char* unit) {
    if (!f.is_object()) return;
    std::string id = textAt(f, "id");
    FindingGroup& g = groups[id];
    if (g.id.empty()) {
      g.id = id;
      g.message = textAt(f, "message");
      g.fix = textAt(f, "fix");
      g.unit = unit;
    }
    std::string sev = textAt(f, "severity");
    if (severityRank(sev) < severityRank(g.severity)) g.severity = sev;
    g.places.insert(place);
  }
  // validate's failure lines repeat each node's error findings
  // ("node1: [memlock-limit] ..."): the grouped table already says those,
  // so only the others are listed (the findings are tallied first).
  void addFailures(const nlohmann::json& list) {
    for (const auto& f : list) {
      std::string line = text(f);
      auto open = line.find(": [");
      auto close = line.find(']', open);
      if (open != std::string::npos && close != std::string::npos &&
          groups.count(line.substr(open + 3, close - open - 3)))
        continue;
      ++failure_lines;
      if (failures.size() < 20) failures.push_back(std::move(line));
    }
  }
};

// Slow links fail a pairs run (bench exits 1 on them) and a validate run.
void tallyPairs(const Document& doc, Tally& t) {
  const auto& p = objectAt(doc.json, "pairs");
  auto read = readPairLinks(p);
  if (!read) {
    t.failed.push_back(fmt::format("{}: pairs: {}", doc.source, read.error().message));
    return;
  }
  size_t slow = 0, links = read->size();
  for (const auto& l : *read) slow += l.slow ? 1 : 0;
  std::string suspects;
  for (const auto& s : arrayAt(p, "suspect_nodes"))
    suspects += fmt::format(" r{} {}", textAt(s, "rank"), textAt(s, "host"));
  if (slow > 0 || !suspects.empty())
    t.failed.push_back(fmt::format("{}: {} slow link(s) of {}{}", doc.source, slow, links,
                                   suspects.empty() ? "" : "; suspect node(s):" + suspects));
}

void tallyDocument(const Document& doc, Tally& t) {
  const auto& j = doc.json;
  tallyPairs(doc, t);
  if (doc.kind != "railkit.bench/v1" && doc.kind != "railkit.logs/v1") t.judged = true;
  if (!objectAt(doc.json, "pairs").empty()) t.judged = true;
  if (!arrayAt(objectAt(j, "job"), "grades").empty()) t.judged = true;
  for (const auto& r : arrayAt(j, "results"))
    if (r.contains("expected_busbw_gbs")) t.judged = true;
  auto findings = [&](const nlohmann::json& list, const std::string& place, const char* unit) {
    if (list.is_array())
      for (const auto& f : list) t.add(f, place, unit);
  };
  std::string what = shortKind(doc.kind);
  if (doc.kind == "railkit.validate/v1") {
    for (const auto& n : arrayAt(j, "nodes")) {
      std::string name = textAt(n, "name");
      t.nodes.insert(name);
      findings(arrayAt(n, "findings"), name, "nodes");
    }
    for (const auto& o : arrayAt(j, "outliers"))
      t.add({{"id", "outlier: " + textAt(o, "attribute")},
             {"severity", "error"},
             {"message", fmt::format("{} on this node; the majority ({} nodes) has {}", textAt(o, "value"),
                                     textAt(o, "majority_count"), textAt(o, "majority_value"))},
             {"fix", "make the node match the rest of the fleet (or the fleet match it)"}},
            textAt(o, "host"), "nodes");
    std::string verdict = textAt(j, "verdict");
    if (verdict != "pass") t.failed.push_back(fmt::format("{}: validate verdict {}", doc.source, verdict));
    if (j.contains("incomplete")) t.failed.push_back(doc.source + ": incomplete: " + textAt(j, "incomplete"));
    t.addFailures(arrayAt(j, "failures"));
  } else if (doc.kind == "railkit.doctor/v1") {
    const std::string& node = doc.source;  // one file per node: its root is "/" on every live node
    t.nodes.insert(node);
    findings(arrayAt(j, "findings"), node, "nodes");
  } else if (doc.kind == "railkit.fabric/v1") {
    findings(arrayAt(j, "findings"), doc.source, "fabrics");
  } else if (doc.kind == "railkit.logs/v1" || doc.kind == "railkit.lint/v1") {
    for (const auto& f : arrayAt(j, "findings")) {
      std::string file = textAt(f, "file");
      t.add(f, file.empty() ? doc.source : file, "files");
    }
    if (textAt(objectAt(j, "job"), "grade") == "fail")
      t.failed.push_back(doc.source + ": a bandwidth grade failed");
  } else if (doc.kind == "railkit.bench/v1") {
    if (numberAt(j, "wrong") > 0)
      t.failed.push_back(fmt::format("{}: {} wrong result(s)", doc.source, textAt(j, "wrong")));
    const auto& failures = arrayAt(j, "failures");
    if (failures.is_array() && !failures.empty()) t.failed.push_back(doc.source + ": bench failures");
    t.addFailures(failures);
  }
}

}  // namespace

std::string renderVerdict(const Documents& docs) {
  if (docs.empty()) return "";
  Tally t;
  for (const auto& doc : docs) tallyDocument(doc, t);
  std::vector<const FindingGroup*> groups;
  for (const auto& [id, g] : t.groups) groups.push_back(&g);
  std::sort(groups.begin(), groups.end(), [](const FindingGroup* a, const FindingGroup* b) {
    if (severityRank(a->severity) != severityRank(b->severity))
      return severityRank(a->severity) < severityRank(b->severity);
    if (a->places.size() != b->places.size()) return a->places.size() > b->places.size();
    return a->id < b->id;
  });
  bool errors =
      std::any_of(groups.begin(), groups.end(), [](const FindingGroup* g) { return g->severity == "error"; });
  bool pass = t.failed.empty() && !errors;
  std::string body = fmt::format("<p class=\"verdict {0}\" data-verdict=\"{0}\">{1}</p>\n",
                                 pass ? "pass" : "fail", pass ? "PASS" : "FAIL");
  if (pass && !t.judged && groups.empty())
    body +=
        "<p class=\"muted\">Nothing failed, and nothing was graded: these inputs hold no expectation. Run "
        "<code>bench</code> or <code>logs</code> with <code>--expect-line-rate</code> (or "
        "<code>validate</code>) "
        "for a verdict on the bandwidth.</p>\n";
  if (!t.failed.empty() || !t.failures.empty()) {
    body += "<ul class=\"failed\">";
    for (const auto& f : t.failed) body += "<li>" + esc(f) + "</li>";
    for (const auto& f : t.failures) body += "<li>" + esc(f) + "</li>";
    if (t.failure_lines > t.failures.size())
      body += fmt::format("<li>... and {} more failure line(s)</li>", t.failure_lines - t.failures.size());
    body += "</ul>\n";
  }
  if (!groups.empty()) {
    body +=
        "<table class=\"findings\"><caption>findings grouped across nodes and files, worst first</caption>\n"
        "<thead><tr><th>severity</th><th>where</th><th>id</th><th>what</th><th>fix</th></tr></"
        "thead><tbody>\n";
    for (const FindingGroup* g : groups) {
      std::string where =
          g->unit == "nodes" && !t.nodes.empty()
              ? fmt::format("{} of {} nodes", g->places.size(), std::max(t.nodes.size(), g->places.size()))
              : fmt::format("{} {}", g->places.size(),
                            g->places.size() == 1 ? g->unit.substr(0, g->unit.size() - 1) : g->unit);
      std::string names;
      size_t shown = 0;
      for (const auto& p : g->places) {
        if (shown++ == 6) {
          names += fmt::format(", +{} more", g->places.size() - 6);
          break;
        }
        names += (names.empty() ? "" : ", ") + p;
      }
      body += fmt::format(
          "<tr class=\"{0}\"><td><span class=\"sev {0}\">{0}</span></td><td title=\"{1}\">{2}</td>"
          "<td><code>{3}</code></td><td>{4}</td><td>{5}</td></tr>\n",
          esc(g->severity), esc(names), esc(where), esc(g->id), esc(g->message), esc(g->fix));
    }
    body += "</tbody></table>\n";
  }
  return section("verdict", "Verdict", body);
}

}  // namespace railkit::report
