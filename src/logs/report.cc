#include "logs/report.h"

#include <algorithm>
#include <future>
#include <nlohmann/json.hpp>
#include <system_error>
#include <utility>

#include "logs/output_findings.h"

namespace railkit::logs {
namespace {

// Errors first, then warnings, then info; input order within a severity.
void sortBySeverity(std::vector<Finding>& findings) {
  auto rank = [](Severity s) { return s == Severity::kError ? 0 : s == Severity::kWarning ? 1 : 2; };
  std::stable_sort(findings.begin(), findings.end(),
                   [&](const Finding& a, const Finding& b) { return rank(a.severity) < rank(b.severity); });
}

}  // namespace

LogsReport combineInputs(std::vector<InputReport> inputs, InputDocuments documents) {
  LogsReport report;
  report.inputs = std::move(inputs);
  // The inputs' documents read only the inputs, as the job's combine does:
  // made on a second thread meanwhile (once the files are read the other
  // core is idle; a big log's per-rank view and table rows are ~10 ms each).
  std::future<std::vector<nlohmann::json>> made;
  if (documents == InputDocuments::kNow) {
    try {
      made = std::async(std::launch::async, [&inputs = std::as_const(report.inputs)] {
        std::vector<nlohmann::json> out;
        out.reserve(inputs.size());
        for (const auto& input : inputs) out.push_back(inputToJson(input));
        return out;
      });
    } catch (const std::system_error&) {
      // No thread to be had: the document makes them later, on this one.
    }
  }
  std::vector<NcclJobInput> analyzed;
  for (const auto& input : report.inputs)
    if (input.nccl_analyzer && input.nccl)
      analyzed.push_back(NcclJobInput{input.nccl_analyzer.get(), &*input.nccl, &input.findings});
  report.job = combineAnalyzedJob(analyzed);
  for (const auto& input : report.inputs)
    for (const auto& f : input.findings) report.findings.push_back(f);
  for (const auto& f : report.job.findings) report.findings.push_back(f);
  sortBySeverity(report.findings);
  if (made.valid()) report.input_documents = made.get();
  return report;
}

namespace {

std::optional<int> positive(const nlohmann::json& facts, const char* key) {
  auto it = facts.find(key);
  if (it == facts.end() || !it->is_number_unsigned()) return std::nullopt;
  auto v = it->get<uint64_t>();
  if (v == 0 || v > 10000000) return std::nullopt;
  return static_cast<int>(v);
}

}  // namespace

// NCCL's own nranks/nNodes (printed by every rank at init) beat counting
// what this excerpt happens to show.
JobHints jobHints(const LogsReport& report) {
  JobHints hints;
  const auto& facts = report.job.facts;
  if (!facts.is_object()) return hints;
  if (auto n = positive(facts, "nranks")) {
    hints.ranks = n;
    hints.ranks_source = "nranks printed by NCCL";
  } else if (auto r = positive(facts, "ranks")) {
    hints.ranks = r;
    hints.ranks_source = "ranks seen in the NCCL lines";
  }
  if (auto n = positive(facts, "nnodes")) {
    hints.nodes = n;
    hints.nodes_source = "nNodes printed by NCCL";
  } else if (auto h = positive(facts, "host_count")) {
    hints.nodes = h;
    hints.nodes_source =
        "hosts the NCCL lines show (hostnames, bootstrap addresses, nranks over one host's ranks)";
  }
  return hints;
}

// "mlx5_0:1/IB" -> "mlx5_0".
std::vector<std::string> jobHcas(const LogsReport& report) {
  std::vector<std::string> out;
  auto it = report.job.facts.is_object() ? report.job.facts.find("hcas") : report.job.facts.end();
  if (it == report.job.facts.end() || !it->is_array()) return out;
  for (const auto& h : *it) {
    if (!h.is_string()) continue;
    std::string name = h.get<std::string>();
    name = name.substr(0, name.find_first_of(":/"));
    if (!name.empty() && std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  }
  return out;
}

void gradeReport(LogsReport& report, const GradeRequest& request) {
  report.grade_request = request;
  JobHints hints = jobHints(report);
  for (const auto& input : report.inputs) {
    if (!input.table) continue;
    report.grades.push_back(gradeTable(*input.table, input.file, request, hints));
  }
  if (report.grades.empty()) {
    Grade none = gradeTable(NcclTestsTable{}, "", request, hints);
    none.reason = "no nccl-tests results table among the inputs: nothing to grade";
    report.grades.push_back(none);
  }
  for (const auto& g : report.grades)
    for (auto& f : gradeFindings(g)) report.findings.push_back(std::move(f));
  sortBySeverity(report.findings);
}

namespace {

// `job` is the job's facts (an object) or null; `made` the inputs' documents
// when combineInputs made them (taken over), else empty.
nlohmann::json documentOf(const LogsReport& report, nlohmann::json job, std::vector<nlohmann::json> made) {
  nlohmann::json inputs = nlohmann::json::array();
  if (made.size() == report.inputs.size()) {
    for (auto& document : made) inputs.push_back(std::move(document));
  } else {
    for (const auto& input : report.inputs) inputs.push_back(inputToJson(input));
  }
  if (!job.is_object()) job = nlohmann::json::object();
  job["inputs"] = report.inputs.size();
  nlohmann::json kinds = nlohmann::json::object();
  for (const auto& input : report.inputs) {
    auto& count = kinds[inputKindName(input.kind)];
    count = count.is_null() ? 1 : count.get<int>() + 1;
  }
  job["kinds"] = kinds;
  if (report.grade_request) {
    nlohmann::json grades = nlohmann::json::array();
    for (const auto& g : report.grades) grades.push_back(gradeToJson(g));
    job["grades"] = grades;
    bool pass = std::all_of(report.grades.begin(), report.grades.end(), [](const Grade& g) {
      return g.status == GradeStatus::kPass || g.status == GradeStatus::kNoBound;
    });
    job["grade"] = pass ? "pass" : "fail";
  }
  int errors = 0, warnings = 0, infos = 0;
  for (const auto& f : report.findings)
    (f.severity == Severity::kError ? errors : f.severity == Severity::kWarning ? warnings : infos)++;
  // Members moved in: an initializer list would copy every input's rows
  // and ranks once more.
  nlohmann::json out = {{"findings", findingsToJson(report.findings)},
                        {"summary", {{"errors", errors}, {"warnings", warnings}, {"info", infos}}}};
  out["inputs"] = std::move(inputs);
  out["job"] = std::move(job);
  return out;
}

}  // namespace

nlohmann::json reportToJson(const LogsReport& report) {
  return documentOf(report, report.job.facts, report.input_documents);
}

nlohmann::json takeReportJson(LogsReport& report) {
  nlohmann::json job = std::move(report.job.facts);
  report.job.facts = nullptr;
  std::vector<nlohmann::json> made = std::move(report.input_documents);
  report.input_documents.clear();
  return documentOf(report, std::move(job), std::move(made));
}

int reportExitStatus(const LogsReport& report) {
  if (hasErrors(report.findings)) return 1;
  for (const auto& g : report.grades)
    if (g.status == GradeStatus::kFail || g.status == GradeStatus::kUngradable) return 1;
  return 0;
}

}  // namespace railkit::logs
