#pragma once
// `--list-rules` for doctor, logs and lint: one shape everywhere. Text is
// one rule per line (id, severity, title) in aligned columns; --json is a
// `railkit.rules/v1` document {"command", "rules": [{"id", "severity",
// "title"}]} (severity: the most serious one the id is reported with).

#include <optional>
#include <string>
#include <vector>

#include "cli/command.h"
#include "core/finding.h"
#include "core/rule_info.h"

namespace railkit::cli {

struct RuleRow {
  std::string id;
  std::optional<Severity> severity;  // the most serious one it reports
  std::string title;
};

int listRules(const std::string& command, const std::vector<RuleRow>& rows, OutputOptions output);

// --list-rules of a domain's table: its rows are RuleInfo, or a rule that is
// a RuleInfo plus its check, so only the shared part is read.
template <typename Table>
int listRuleTable(const std::string& command, const Table& table, const OutputOptions& output) {
  std::vector<RuleRow> rows;
  for (const RuleInfo& r : table) rows.push_back({r.id, r.severity, r.title});
  return listRules(command, rows, output);
}

}  // namespace railkit::cli
