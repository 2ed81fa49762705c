// railkit explain RULE: why a finding id matters and how to fix it. An id
// names a problem, not a detector, so explain covers every detector of it:
// the doctor rule's full text first, then the other commands that report it
// (lint in manifests, logs in NCCL logs and test outputs).
#include <fmt/core.h>

#include <memory>

#include "cli/commands.h"
#include "doctor/rule.h"
#include "k8s/lint/lint.h"
#include "logs/catalogue.h"

namespace railkit::cli {
namespace {

const k8s::Rule* findLintRule(const std::string& id) {
  for (const auto& rule : k8s::allRules())
    if (id == rule.id) return &rule;
  return nullptr;
}

int runExplain(const std::string& id) {
  const auto* rule = doctor::findRule(id);
  const auto* lint = findLintRule(id);
  const auto* logs = logs::findLogsEntry(id);
  if (rule == nullptr && lint == nullptr && logs == nullptr)
    return reportError(Error{ErrorCode::kUsage,
                             fmt::format("unknown rule '{}' (railkit doctor --list-rules lists them)", id)});
  if (rule != nullptr) {
    fmt::print("{} ({})\n{}\n\n{}\n", rule->id, severityName(rule->severity), rule->title, rule->explain);
    if (lint != nullptr) fmt::print("\n`railkit lint` also reports {} in manifests: {}.\n", id, lint->summary);
    if (logs != nullptr) fmt::print("\n`railkit logs` also reports {} in logs: {}.\n", id, logs->title);
    return kExitOk;
  }
  if (logs != nullptr) {
    fmt::print("{} ({})\n{}\n\n{}\n\nReported by `railkit logs` with the file, line and evidence lines.\n", id,
               severityName(logs->severity), logs->title, logs->explain);
    if (lint != nullptr) fmt::print("\n`railkit lint` also reports {} in manifests: {}.\n", id, lint->summary);
    return kExitOk;
  }
  fmt::print(
      "{} (lint)\n{}\n\nReported by `railkit lint` in manifests, with the file, line, object and field "
      "path.\n",
      id, lint->summary);
  return kExitOk;
}

}  // namespace

void registerExplain(CLI::App& app, CommandContext& context) {
  auto* command = app.add_subcommand("explain", "Explain a finding id: why it matters and how to fix it");
  auto id = std::make_shared<std::string>();
  command->add_option("rule", *id, "Rule id (see railkit doctor --list-rules)")->required();
  command->callback([&context, id] { context.action = [id] { return runExplain(*id); }; });
}

}  // namespace railkit::cli
