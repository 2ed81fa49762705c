#pragma once
// A `railkit logs` run: every input of one invocation is one job (one file per
// rank or pod is common). The report holds the per-input results, the NCCL
// facts combined across inputs, the grades asked for, and every finding, in
// one struct that renders both the JSON document and the human view.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/finding.h"
#include "logs/grade.h"
#include "logs/input.h"
#include "logs/nccl_log.h"

namespace railkit::logs {

struct LogsReport {
  std::vector<InputReport> inputs;
  NcclJobResult job;  // NCCL facts combined over every input, job-only findings
  std::optional<GradeRequest> grade_request;
  std::vector<Grade> grades;      // one per nccl-tests input when grading was asked for
  std::vector<Finding> findings;  // per input, job-wide, and failed grades
  // inputToJson of each input, when combineInputs was asked to make them;
  // the document takes them over (empty: made when the document is).
  std::vector<nlohmann::json> input_documents;
};

// Whether combineInputs also makes each input's JSON document: a caller that
// will print the document asks, the others (the text view) do not pay for it.
enum class InputDocuments { kLater, kNow };

// Combines the inputs into one job (NCCL facts and job-wide findings).
LogsReport combineInputs(std::vector<InputReport> inputs, InputDocuments documents = InputDocuments::kLater);

// What grading needs from the NCCL lines: ranks, hosts, and the HCAs NCCL
// said it used (to sum only those NICs under --root).
JobHints jobHints(const LogsReport& report);
std::vector<std::string> jobHcas(const LogsReport& report);

// Grades every nccl-tests input (or records that there is none) and adds a
// finding for each failed grade.
void gradeReport(LogsReport& report, const GradeRequest& request);

nlohmann::json reportToJson(const LogsReport& report);
// The same document, the job's facts moved into it instead of copied (a big
// job's per-rank view is thousands of objects): report.job.facts is left
// null, for a caller done with them (renderText reads them).
nlohmann::json takeReportJson(LogsReport& report);
std::string renderText(const LogsReport& report);

// 1 when an error finding fired or a grade failed / could not be made, else 0.
int reportExitStatus(const LogsReport& report);

}  // namespace railkit::logs
