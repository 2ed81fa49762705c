// What the logs reader found: per input (one file per rank or pod is common)
// the NCCL version, ranks, the transport NCCL really used between nodes and
// whether GPUDirect RDMA was on; then per rank (section_logs_ranks.cc);
// perftest results; then every finding with the evidence lines it rests on.
#include <fmt/format.h>

#include "report/html.h"
#include "report/sections.h"

namespace railkit::report {
namespace {

std::string joined(const nlohmann::json& list) {
  std::string out;
  if (!list.is_array()) return text(list);
  for (const auto& v : list) out += (out.empty() ? "" : ", ") + text(v);
  return out;
}

std::string transports(const nlohmann::json& t) {
  std::string out;
  if (!t.is_object()) return out;
  for (const auto& [name, count] : t.items())
    out += fmt::format("{}{} x{}", out.empty() ? "" : ", ", name, text(count));
  return out;
}

std::string gdr(const nlohmann::json& in) {
  if (!in.contains("gdr") || in["gdr"].is_null()) return "";
  return in["gdr"].is_boolean() ? (in["gdr"].get<bool>() ? "yes" : "<b class=\"bad\">no</b>")
                                : esc(text(in["gdr"]));
}

std::string findingsList(const nlohmann::json& findings) {
  std::string out = "<ul class=\"evidence-list\">";
  for (const auto& f : findings) {
    std::string sev = textAt(f, "severity");
    out += fmt::format("<li class=\"{0}\"><span class=\"sev {0}\">{0}</span> <code>{1}</code> {2}: {3}",
                       esc(sev), esc(textAt(f, "id")), esc(textAt(f, "subject")), esc(textAt(f, "message")));
    const auto& ev = arrayAt(f, "evidence");
    if (ev.is_array() && !ev.empty()) {
      out += "<pre class=\"evidence\">";
      for (const auto& e : ev) {
        std::string line = textAt(e, "line");
        out += esc(textAt(e, "source") + (line.empty() ? "" : ":" + line) + ": " + textAt(e, "text")) + "\n";
      }
      out += "</pre>";
    }
    if (!textAt(f, "fix").empty()) out += "<p class=\"fix\">fix: " + esc(textAt(f, "fix")) + "</p>";
    out += "</li>\n";
  }
  return out + "</ul>\n";
}

}  // namespace

std::string renderNcclLogs(const Documents& docs) {
  std::string body;
  for (const auto& doc : docs) {
    if (doc.kind != "railkit.logs/v1") continue;
    std::string rows, perf;
    for (const auto& in : arrayAt(doc.json, "inputs")) {
      std::string kind = textAt(in, "kind");
      if (kind == "perftest") {
        perf += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                            esc(textAt(in, "file")), esc(textAt(in, "tool")), esc(textAt(in, "device")),
                            esc(textAt(in, "link_type")), esc(textAt(in, "bw_avg_max_gbps")),
                            esc(textAt(in, "bw_avg_largest_gbps")));
        continue;
      }
      if (numberAt(in, "nccl_lines") <= 0 && kind != "nccl-log") continue;
      rows += fmt::format(
          "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></"
          "tr>\n",
          esc(textAt(in, "file")), esc(textAt(in, "nccl_version")), esc(textAt(in, "nranks")),
          esc(joined(arrayAt(in, "hosts"))), esc(textAt(in, "inter_node_transport")), gdr(in),
          esc(joined(arrayAt(in, "hcas"))), esc(transports(objectAt(in, "transports"))));
    }
    // Several inputs are one job (a file per rank is common): its combined facts last.
    const auto& job = objectAt(doc.json, "job");
    if (!rows.empty() && arrayAt(doc.json, "inputs").size() > 1 && numberAt(job, "nccl_lines") > 0)
      rows += fmt::format(
          "<tr class=\"job\"><th>the job ({} inputs)</th><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
          "<td>{}</td><td>{}</td><td>{}</td></tr>\n",
          arrayAt(doc.json, "inputs").size(), esc(textAt(job, "nccl_version")), esc(textAt(job, "nranks")),
          esc(joined(arrayAt(job, "hosts"))), esc(textAt(job, "inter_node_transport")), gdr(job),
          esc(joined(arrayAt(job, "hcas"))), esc(transports(objectAt(job, "transports"))));
    std::string part;
    if (!rows.empty())
      part +=
          "<table class=\"numbers\"><caption>NCCL, per input (one file per rank or pod: per "
          "rank)</caption><thead><tr><th>file</th><th>NCCL</th>"
          "<th>nranks</th><th>hosts</th><th>inter-node transport</th><th>GPUDirect RDMA</th><th>HCAs</th>"
          "<th>connections</th></tr></thead><tbody>\n" +
          rows + "</tbody></table>\n";
    if (!rows.empty()) part += renderRankTable(job);
    if (!perf.empty())
      part +=
          "<table "
          "class=\"numbers\"><caption>perftest</caption><thead><tr><th>file</th><th>tool</th><th>device</th>"
          "<th>link</th><th>best average (Gb/s)</th><th>average at the largest size "
          "(Gb/s)</th></tr></thead><tbody>\n" +
          perf + "</tbody></table>\n";
    const auto& findings = arrayAt(doc.json, "findings");
    if (findings.is_array() && !findings.empty()) part += "<h3>Findings</h3>\n" + findingsList(findings);
    if (!part.empty()) body += fmt::format("<h3>{}</h3>\n{}", esc(doc.source), part);
  }
  return body.empty() ? "" : section("logs", "NCCL logs", body);
}

}  // namespace railkit::report
