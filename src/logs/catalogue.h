#pragma once
// Every finding id `railkit logs` can report, with its severity, a title and
// an explanation (why it matters and how to fix it), for `railkit explain`,
// `logs --list-rules` and the docs, sorted by id. Each is declared next to
// what raises it: the NCCL rules in nccl/rules/ (the job-wide findings of
// nccl_job.cc reuse theirs), the nccl-tests, perftest and grade findings in
// output_findings.cc.

#include <string_view>
#include <vector>

#include "core/rule_info.h"

namespace railkit::logs {

using CatalogueEntry = RuleInfo;

const std::vector<CatalogueEntry>& logsCatalogue();
const CatalogueEntry* findLogsEntry(std::string_view id);

}  // namespace railkit::logs
