#include "fabric/report.h"

#include <fmt/core.h>
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "fabric/check.h"
#include "fabric/rails.h"
#include "fabric/scheduler_topology.h"

namespace railkit::fabric {
namespace {

std::vector<RailRow> picture(const Fabric& fabric, const RailView& view) {
  std::vector<RailRow> rows;
  for (int r = 0; r < view.rails(); ++r) {
    RailRow row{r, view.railDevice(r), {}};
    for (std::size_t l = 0; l < view.leaves.size(); ++l) {
      int n = view.leaf_rail_counts[l][r];
      if (n == 0) continue;
      row.leaves.push_back({switchName(fabric.nodes[view.leaves[l]]), n, view.stray(static_cast<int>(l), r)});
    }
    std::sort(row.leaves.begin(), row.leaves.end(),
              [](const RailCell& a, const RailCell& b) { return a.leaf < b.leaf; });
    rows.push_back(std::move(row));
  }
  return rows;
}

std::vector<TierRow> tierRows(const Fabric& fabric, const FabricTiers& tiers) {
  std::vector<TierRow> rows;
  for (std::size_t t = 0; t < tiers.tiers.size(); ++t) {
    TierRow row{tierName(t), {}};
    for (const auto& g : tiers.tiers[t]) {
      TierGroupRow group{g.name, {}, static_cast<int>(g.hosts.size())};
      for (auto s : g.switches) group.switches.push_back(switchName(fabric.nodes[s]));
      row.groups.push_back(std::move(group));
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace

FabricReport analyseFabric(const Fabric& fabric, const std::vector<SmCapture>& sm,
                           const std::vector<CounterCapture>& counters, const HcaMap* map,
                           const LinkInfoCapture* links, const std::vector<std::string>* rail_names) {
  RailView view = buildRailView(fabric, map, rail_names);
  FabricReport report;
  report.source = fabric.source;
  report.leaves = static_cast<int>(view.leaves.size());
  report.upper = static_cast<int>(view.upper.size());
  report.switches = report.leaves + report.upper;
  report.hosts = static_cast<int>(view.hosts.size());
  for (const auto& h : view.hca_ports) report.hca_ports += h.rail >= 0;
  report.unnamed = static_cast<int>(view.unnamed.size());
  report.rails = view.rails();
  report.picture = picture(fabric, view);
  report.tiers = buildTiers(fabric, view);
  report.tier_rows = tierRows(fabric, report.tiers);
  report.findings = runFabricChecks(FabricInput{fabric, view, sm, counters, links});
  for (const auto& capture : sm)
    for (const auto& r : capture.records) {
      std::string master = fmt::format("{} (lid {})", r.guid, r.lid);
      if (r.state == kSmMaster &&
          std::find(report.masters.begin(), report.masters.end(), master) == report.masters.end())
        report.masters.push_back(master);
    }
  for (const auto& f : report.findings)
    ++(f.severity == Severity::kError     ? report.errors
       : f.severity == Severity::kWarning ? report.warnings
                                          : report.infos);
  return report;
}

nlohmann::json fabricDocument(const FabricReport& r) {
  nlohmann::json rails = nlohmann::json::array();
  for (const auto& row : r.picture) {
    nlohmann::json leaves = nlohmann::json::array();
    for (const auto& c : row.leaves)
      leaves.push_back({{"leaf", c.leaf}, {"hcas", c.hcas}, {"stray", c.stray}});
    rails.push_back({{"rail", row.rail}, {"device", row.device}, {"leaves", leaves}});
  }
  nlohmann::json tiers = nlohmann::json::array();
  for (std::size_t t = 0; t < r.tier_rows.size(); ++t) {
    nlohmann::json groups = nlohmann::json::array();
    for (const auto& g : r.tier_rows[t].groups)
      groups.push_back({{"name", g.name}, {"switches", g.switches}, {"hosts", g.hosts}});
    tiers.push_back({{"tier", t + 1}, {"name", r.tier_rows[t].name}, {"groups", groups}});
  }
  return {{"source", r.source},
          {"fabric",
           {{"switches", r.switches},
            {"leaves", r.leaves},
            {"upper_switches", r.upper},
            {"hosts", r.hosts},
            {"hca_ports", r.hca_ports},
            {"unnamed_hcas", r.unnamed},
            {"rails", r.rails},
            {"sm_masters", r.masters}}},
          {"rails", rails},
          {"tiers", tiers},
          {"findings", findingsToJson(r.findings)},
          {"summary", {{"errors", r.errors}, {"warnings", r.warnings}, {"info", r.infos}}}};
}

namespace {

// Rails by leaves: one line per rail, its leaves with how many of the rail's
// HCAs each holds; a stray (a cable on another rail's leaf) is marked "<<".
std::string renderPicture(const FabricReport& r) {
  std::string out;
  std::size_t width = 0;
  for (const auto& row : r.picture) width = std::max(width, row.device.size());
  for (const auto& row : r.picture) {
    std::string line = fmt::format("  rail {:<2} {:<{}} ", row.rail, row.device, width);
    for (const auto& c : row.leaves) line += fmt::format(" {} x{}{}", c.leaf, c.hcas, c.stray ? " <<" : "");
    out += line + "\n";
  }
  return out;
}

// The tiers, a line each: how many groups, the first few by name.
std::string renderTiers(const FabricReport& r) {
  constexpr std::size_t kShown = 4;
  std::string out;
  for (const auto& row : r.tier_rows) {
    std::vector<std::string> shown;
    for (std::size_t g = 0; g < row.groups.size() && g < kShown; ++g)
      shown.push_back(fmt::format("{} ({} switch{}, {} hosts)", row.groups[g].name,
                                  row.groups[g].switches.size(),
                                  row.groups[g].switches.size() == 1 ? "" : "es", row.groups[g].hosts));
    if (row.groups.size() > kShown) shown.push_back(fmt::format("and {} more", row.groups.size() - kShown));
    out += fmt::format("  {:<10} {} group{}: {}\n", row.name, row.groups.size(),
                       row.groups.size() == 1 ? "" : "s", fmt::join(shown, ", "));
  }
  return out;
}

}  // namespace

std::string renderFabricText(const FabricReport& r) {
  std::string out = fmt::format("railkit fabric: {}\n", r.source);
  out += fmt::format("{} switches ({} leaves, {} above them), {} hosts with {} HCA ports on {} rails{}\n\n",
                     r.switches, r.leaves, r.upper, r.hosts, r.hca_ports, r.rails,
                     r.unnamed ? fmt::format(", {} HCAs without a host name", r.unnamed) : "");
  if (!r.masters.empty())
    out += fmt::format("Subnet manager (sminfo): master {}\n\n", fmt::join(r.masters, ", "));
  if (!r.picture.empty())
    out += "Rails by leaves (HCAs per leaf; << a cable on another rail's leaf):\n" + renderPicture(r) + "\n";
  if (!r.tier_rows.empty())
    out += "Tiers for the schedulers (--topology-out DIR writes them):\n" + renderTiers(r) + "\n";
  Severity last = Severity::kInfo;
  bool first = true;
  for (const auto& f : r.findings) {
    if (first || f.severity != last) {
      out += fmt::format("{}{}:\n", first ? "" : "\n",
                         f.severity == Severity::kError     ? "ERRORS"
                         : f.severity == Severity::kWarning ? "WARNINGS"
                                                            : "INFO");
      last = f.severity;
      first = false;
    }
    out += fmt::format("  [{}] {}: {}\n", f.id, f.subject, f.message);
    for (const auto& e : f.evidence)
      out += fmt::format("      evidence: {}{}: {}\n", e.source, e.line ? fmt::format(":{}", *e.line) : "",
                         e.text);
    if (!f.fix.empty()) out += fmt::format("      fix: {}\n", f.fix);
  }
  if (r.findings.empty()) out += "no problems found\n";
  out += fmt::format("\n{} error(s), {} warning(s), {} info; `railkit explain <id>` for details\n", r.errors,
                     r.warnings, r.infos);
  return out;
}

}  // namespace railkit::fabric
