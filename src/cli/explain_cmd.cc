// railkit explain RULE: why a doctor rule matters and how to fix it.
#include <memory>

#include <fmt/core.h>

#include "cli/commands.h"
#include "doctor/rule.h"

namespace railkit::cli {
namespace {

int runExplain(const std::string& id) {
  const auto* rule = doctor::findRule(id);
  if (rule == nullptr)
    return reportError(Error{ErrorCode::kUsage,
                                 fmt::format("unknown rule '{}' (railkit doctor --list-rules lists them)", id)});
  fmt::print("{} ({})\n{}\n\n{}\n", rule->id, severityName(rule->severity), rule->title, rule->explain);
  return kExitOk;
}

}  // namespace

void registerExplain(CLI::App& app, CommandContext& context) {
  auto* command = app.add_subcommand("explain", "Explain a doctor rule: why it matters and how to fix it");
  auto id = std::make_shared<std::string>();
  command->add_option("rule", *id, "Rule id (see railkit doctor --list-rules)")->required();
  command->callback([&context, id] { context.action = [id] { return runExplain(*id); }; });
}

}  // namespace railkit::cli
