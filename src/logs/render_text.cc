// The human view of a `railkit logs` report: one block per input, the job,
// the grades with every number used, then the findings with file:line
// evidence and their fixes.
#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <cmath>

#include "logs/report.h"

namespace railkit::logs {
namespace {

std::string bytesText(double bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  while (bytes >= 1024 && unit < 4 && std::fmod(bytes, 1024) == 0) {
    bytes /= 1024;
    ++unit;
  }
  return fmt::format("{:g} {}", bytes, kUnits[unit]);
}

std::string optText(const std::optional<double>& v, const char* unit) {
  return v ? fmt::format("{:g} {}", *v, unit) : std::string("n/a");
}

void renderTable(std::string& out, const NcclTestsTable& t) {
  if (t.rows.empty()) {
    out += "  table: header only, no result rows\n";
    return;
  }
  const auto& first = t.rows.front();
  double largest = 0;
  uint64_t largest_line = 0;
  for (const auto& r : t.rows)
    if (r.size_bytes >= largest) {
      largest = r.size_bytes;
      largest_line = r.line;
    }
  out += fmt::format("  table: {}{} rows, {} .. {}{}\n", t.op.empty() ? "" : t.op + ", ", t.rows.size(),
                     bytesText(first.size_bytes), bytesText(largest), t.old_layout ? " (old layout)" : "");
  if (!t.ranks.empty()) out += fmt::format("  ranks: {} on {} host(s)\n", t.ranks.size(), t.hosts.size());
  out += fmt::format("  busbw: peak {}, at the largest size {} (line {}), avg {} as printed\n",
                     optText(t.peak_busbw_gbs, "GB/s"), optText(t.largest_busbw_gbs, "GB/s"), largest_line,
                     optText(t.avg_busbw_gbs, "GB/s"));
  out +=
      fmt::format("  #wrong: {}; {}\n", t.wrong_total ? std::to_string(*t.wrong_total) : "n/a (old layout)",
                  t.out_of_bounds.value_or("no out-of-bounds line"));
}

void renderPerftest(std::string& out, const PerftestResult& p) {
  std::vector<std::string> facts;
  if (!p.link_type.empty()) facts.push_back("link " + p.link_type);
  if (p.mtu_bytes) facts.push_back(fmt::format("MTU {}", *p.mtu_bytes));
  if (p.qps) facts.push_back(fmt::format("{} QP(s)", *p.qps));
  if (!p.connection_type.empty()) facts.push_back(p.connection_type);
  if (p.gid_index) facts.push_back(fmt::format("GID index {}", *p.gid_index));
  std::string joined;
  for (const auto& f : facts) joined += (joined.empty() ? "" : ", ") + f;
  out += fmt::format("  {}{}{}\n", p.tool.empty() ? p.test : p.tool,
                     p.device.empty() ? "" : " on " + p.device, joined.empty() ? "" : " (" + joined + ")");
  if (p.rows.empty()) {
    out += "  no result rows\n";
    return;
  }
  const auto& last = p.rows.back();
  if (p.latency) {
    out += fmt::format("  {} row(s); at {}: t_avg {}, t_typical {}, p99 {}, p99.9 {}\n", p.rows.size(),
                       bytesText(last.bytes), optText(last.t_avg_us, "us"), optText(last.t_typical_us, "us"),
                       optText(last.p99_us, "us"), optText(last.p999_us, "us"));
    return;
  }
  std::optional<double> best;
  for (const auto& r : p.rows)
    if (r.bw_avg_gbps && (!best || *r.bw_avg_gbps > *best)) best = r.bw_avg_gbps;
  out += fmt::format("  {} row(s), {} .. {}; BW average at the last row {} (line {}), best {}{}\n",
                     p.rows.size(), bytesText(p.rows.front().bytes), bytesText(last.bytes),
                     optText(last.bw_avg_gbps, "Gb/s"), last.line, optText(best, "Gb/s"),
                     p.bw_unit.empty() || p.bw_unit == "Gb/sec" ? "" : " (converted from " + p.bw_unit + ")");
}

std::string joined(const std::vector<std::string>& items, size_t limit = 6) {
  std::string out;
  for (size_t i = 0; i < items.size() && i < limit; ++i) out += (i ? ", " : "") + items[i];
  if (items.size() > limit) out += fmt::format(" (+{} more)", items.size() - limit);
  return out.empty() ? "none shown" : out;
}

// A plugin net keeps its name ("IBext_v8"); its link layer follows it.
// IB and RoCE already say theirs.
std::string transportText(const std::string& transport, const std::string& link_layer) {
  if (link_layer.empty() || transport == "IB" || transport == "RoCE") return transport;
  return transport + " (link layer " + link_layer + ")";
}

std::string gdrText(const std::optional<bool>& gdr) {
  return gdr ? (*gdr ? "yes" : "no") : "not shown";
}

// "per rank: 8 rank(s) ... on 2 host(s): NET/IB GDR 4, no NET channel 4":
// the ranks grouped by what their channels used, so the odd rank stands out.
// `ranks` holds each rank's host and that kind.
void renderRanks(std::string& out, const char* label,
                 const std::vector<std::pair<std::string, std::string>>& ranks, uint64_t not_kept) {
  if (ranks.empty()) return;
  std::vector<std::pair<std::string, uint64_t>> kinds;
  std::vector<std::string> hosts;
  for (const auto& rank : ranks) {
    const std::string& host = rank.first;
    const std::string& kind = rank.second;
    if (std::find(hosts.begin(), hosts.end(), host) == hosts.end()) hosts.push_back(host);
    auto it = std::find_if(kinds.begin(), kinds.end(), [&](const auto& k) { return k.first == kind; });
    if (it == kinds.end())
      kinds.emplace_back(kind, 1);
    else
      ++it->second;
  }
  std::vector<std::string> parts;
  for (const auto& [kind, count] : kinds) parts.push_back(fmt::format("{} {}", kind, count));
  out += fmt::format("{}: {} rank(s) with lines of their own, on {} host(s): {}{}\n", label, ranks.size(),
                     hosts.size(), joined(parts, 8),
                     not_kept ? fmt::format(" ({} more not kept)", not_kept) : "");
}

std::string rankKind(const std::string& transport, const std::optional<bool>& gdr) {
  if (transport.empty()) return "no NET channel";
  return transport + (gdr ? (*gdr ? " GDR" : " no GDR") : "");
}

void renderRanks(std::string& out, const NcclRanks& ranks) {
  std::vector<std::pair<std::string, std::string>> list;
  for (const auto& r : ranks.ranks) list.emplace_back(r.host, rankKind(r.transport, r.gdr));
  renderRanks(out, "  per rank", list, ranks.not_kept);
}

// The job's per_rank (JSON): every input's ranks together.
void renderJobRanks(std::string& out, const nlohmann::json& facts) {
  auto it = facts.find("per_rank");
  if (it == facts.end() || !it->is_array()) return;
  std::vector<std::pair<std::string, std::string>> list;
  for (const auto& r : *it) {
    if (!r.is_object()) continue;
    std::string transport =
        r.value("transport", nlohmann::json()).is_string() ? r["transport"].get<std::string>() : "";
    std::optional<bool> gdr;
    if (r.contains("gdr") && r["gdr"].is_boolean()) gdr = r["gdr"].get<bool>();
    list.emplace_back(r.value("host", ""), rankKind(transport, gdr));
  }
  auto not_kept = facts.find("per_rank_not_kept");
  renderRanks(out, "  per rank", list,
              not_kept != facts.end() && not_kept->is_number_unsigned() ? not_kept->get<uint64_t>() : 0);
}

void renderNccl(std::string& out, const NcclLogFacts& f) {
  std::string who;
  uint64_t hosts = std::max<uint64_t>(f.host_count, f.hosts.size());
  if (f.ranks > 0 || hosts > 0) who = fmt::format(": {} rank(s) on {} host(s)", f.ranks, hosts);
  if (f.nranks)
    who += fmt::format(" (nranks {}{})", *f.nranks, f.nnodes ? fmt::format(", nNodes {}", *f.nnodes) : "");
  out += fmt::format("  NCCL {}{}\n",
                     f.nccl_versions.empty() ? "version not shown" : joined(f.nccl_versions, 3), who);
  out += fmt::format("  inter-node transport {}, GPUDirect RDMA {}; network {}; HCAs {}\n",
                     transportText(f.inter_node_transport, f.link_layer), gdrText(f.gdr), joined(f.networks),
                     joined(f.hcas));
  if (!f.transports.empty()) {
    std::vector<std::string> parts;
    for (const auto& [name, count] : f.transports) parts.push_back(fmt::format("{} x{}", name, count));
    out += "  connections: " + joined(parts, 8) + "\n";
  }
  if (!f.bootstrap.empty()) out += "  bootstrap: " + joined(f.bootstrap, 4) + "\n";
  renderRanks(out, f.per_rank);
}

std::string jsonText(const nlohmann::json& facts, const char* key) {
  auto it = facts.find(key);
  if (it == facts.end() || it->is_null()) return "not shown";
  if (it->is_string()) return it->get<std::string>();
  if (it->is_boolean()) return it->get<bool>() ? "yes" : "no";
  if (it->is_array()) {
    std::vector<std::string> items;
    for (const auto& v : *it) items.push_back(v.is_string() ? v.get<std::string>() : v.dump());
    return joined(items, 4);
  }
  return it->dump();
}

void renderJob(std::string& out, const LogsReport& report) {
  out += fmt::format("\njob: {} input(s)", report.inputs.size());
  const auto& facts = report.job.facts;
  bool any_nccl = false;
  for (const auto& input : report.inputs) any_nccl = any_nccl || input.nccl_lines;
  if (!any_nccl || !facts.is_object()) {
    out += "\n";
    return;
  }
  std::string versions = jsonText(facts, "nccl_versions");
  out += "; NCCL " + (versions == "none shown" ? std::string("version not shown") : versions);
  auto ranks = facts.find("ranks");
  if (ranks != facts.end() && ranks->is_number() && ranks->get<double>() > 0)
    out += fmt::format("; {} rank(s) on {} host(s) seen", jsonText(facts, "ranks"),
                       jsonText(facts, "host_count"));
  auto link = facts.find("link_layer");
  out += fmt::format("; inter-node transport {}, GPUDirect RDMA {}\n",
                     transportText(jsonText(facts, "inter_node_transport"),
                                   link != facts.end() && link->is_string() ? link->get<std::string>() : ""),
                     jsonText(facts, "gdr"));
  // One file per rank is common: the job's line is the one that shows them all.
  if (report.inputs.size() > 1) renderJobRanks(out, facts);
}

}  // namespace

std::string renderText(const LogsReport& report) {
  std::string out = fmt::format("railkit logs: {} input(s)\n", report.inputs.size());
  for (const auto& input : report.inputs) {
    out += fmt::format("\n{}: {} ({} lines)\n", input.file, inputKindName(input.kind), input.stats.lines);
    if (input.nccl) renderNccl(out, *input.nccl);
    if (input.table) renderTable(out, *input.table);
    if (input.perftest) renderPerftest(out, *input.perftest);
    for (const auto& note : input.notes) out += "  note: " + note + "\n";
  }
  renderJob(out, report);
  for (const auto& g : report.grades) {
    std::string status = gradeStatusName(g.status);
    for (auto& c : status) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    out += fmt::format("grade {}{}: {}\n", status, g.file.empty() ? "" : " " + g.file, g.reason);
    if (g.method == "expect-line-rate" && g.nic_gbps)
      out += fmt::format("  NIC rate R = {:g} Gb/s from {}; ranks {} ({}), nodes {} ({}), op {} ({})\n",
                         *g.nic_gbps, g.nic_source, g.ranks ? std::to_string(*g.ranks) : "?", g.ranks_source,
                         g.nodes ? std::to_string(*g.nodes) : "?", g.nodes_source, g.op.empty() ? "?" : g.op,
                         g.op_source);
  }
  int errors = 0, warnings = 0, infos = 0;
  Severity last = Severity::kInfo;
  bool first = true;
  for (const auto& f : report.findings) {
    (f.severity == Severity::kError ? errors : f.severity == Severity::kWarning ? warnings : infos)++;
    if (first || f.severity != last) {
      out += f.severity == Severity::kError     ? "\nERRORS:\n"
             : f.severity == Severity::kWarning ? "\nWARNINGS:\n"
                                                : "\nINFO:\n";
      last = f.severity;
      first = false;
    }
    out += fmt::format("  [{}] {}: {}\n", f.id, f.subject, f.message);
    for (const auto& e : f.evidence)
      out += fmt::format("      evidence: {}{}: {}\n", e.source, e.line ? fmt::format(":{}", *e.line) : "",
                         e.text);
    if (!f.fix.empty()) out += "      fix: " + f.fix + "\n";
  }
  if (report.findings.empty()) out += "\nno problems found\n";
  out += fmt::format("\n{} error(s), {} warning(s), {} info\n", errors, warnings, infos);
  return out;
}

}  // namespace railkit::logs
