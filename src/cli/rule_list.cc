#include "cli/rule_list.h"

#include <fmt/core.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/json_util.h"

namespace railkit::cli {

int listRules(const std::string& command, const std::vector<RuleRow>& rows, OutputOptions output) {
  output.kind = "railkit.rules/v1";
  nlohmann::json list = nlohmann::json::array();
  for (const auto& r : rows) {
    list.push_back({{"id", r.id}, {"severity", jsonOpt(r.severity, severityName)}, {"title", r.title}});
  }
  auto st = emitOutput(output, nlohmann::json{{"command", command}, {"rules", list}}, [&] {
    std::size_t width = 0;
    for (const auto& r : rows) width = std::max(width, r.id.size());
    for (const auto& r : rows) {
      fmt::print("{:<{}} {:<8} {}\n", r.id, width + 1, r.severity ? severityName(*r.severity) : "-", r.title);
    }
  });
  if (!st) return reportError(st.error());
  return kExitOk;
}

}  // namespace railkit::cli
