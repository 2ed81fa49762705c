#pragma once
// Every finding id `railkit logs` can report, with its severity, a title and
// an explanation (why it matters and how to fix it), for `railkit explain`
// and the docs. The NCCL rules' ids come from their table (nccl/all_rules.cc);
// the ids raised elsewhere (job-wide findings, nccl-tests tables, perftest,
// grades) are listed here too. A test keeps this list and the emitters in step.

#include <string_view>
#include <vector>

#include "core/rule_info.h"

namespace railkit::logs {

using CatalogueEntry = RuleInfo;

const std::vector<CatalogueEntry>& logsCatalogue();
const CatalogueEntry* findLogsEntry(std::string_view id);

}  // namespace railkit::logs
