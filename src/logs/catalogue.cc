#include "logs/catalogue.h"

#include <algorithm>

#include "logs/nccl/rule.h"
#include "logs/output_findings.h"

namespace railkit::logs {

// Assembled from the declarations, so an id cannot be raised without an
// explanation, nor explained without a raiser: the NCCL rules' RuleInfo and
// the ids of the benchmark-output findings.
const std::vector<CatalogueEntry>& logsCatalogue() {
  static const std::vector<CatalogueEntry> kEntries = [] {
    std::vector<CatalogueEntry> out(outputFindingRules());
    for (const nccl::NcclRule& rule : nccl::allNcclRules()) out.push_back(rule);
    std::sort(out.begin(), out.end(),
              [](const CatalogueEntry& a, const CatalogueEntry& b) { return std::string_view(a.id) < b.id; });
    return out;
  }();
  return kEntries;
}

const CatalogueEntry* findLogsEntry(std::string_view id) {
  for (const auto& e : logsCatalogue())
    if (id == e.id) return &e;
  return nullptr;
}

}  // namespace railkit::logs
