// railkit explain RULE: why a finding id matters and how to fix it. An id
// names a problem, not a detector, so explain covers every detector of it:
// the doctor rule's full text first, then the other commands that report it
// (lint in manifests, logs in NCCL logs and test outputs). validate's own
// ids (the node counts of phase 1) come from validate's table.
#include <fmt/core.h>

#include <memory>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "doctor/rule.h"
#include "k8s/lint/lint.h"
#include "logs/catalogue.h"
#include "validate/rules.h"

namespace railkit::cli {
namespace {

const k8s::Rule* findLintRule(const std::string& id) {
  for (const auto& rule : k8s::allRules())
    if (id == rule.id) return &rule;
  return nullptr;
}

// --json: {"id", "reported_by": [{"command", "severity", "title", "explain"}]},
// one entry per command that reports the id, doctor first.
nlohmann::json explainDocument(const std::string& id, const doctor::Rule* rule, const k8s::Rule* lint,
                               const logs::CatalogueEntry* logs, const validate::ValidateRule* check) {
  nlohmann::json by = nlohmann::json::array();
  if (rule != nullptr) {
    by.push_back({{"command", "doctor"}, {"severity", severityName(rule->severity)}, {"title", rule->title},
                  {"explain", rule->explain}});
  }
  if (logs != nullptr) {
    by.push_back({{"command", "logs"}, {"severity", severityName(logs->severity)}, {"title", logs->title},
                  {"explain", logs->explain}});
  }
  if (lint != nullptr) {
    by.push_back({{"command", "lint"}, {"severity", severityName(lint->severity)}, {"title", lint->title},
                  {"explain", lint->explain}});
  }
  if (check != nullptr) {
    by.push_back({{"command", "validate"}, {"severity", severityName(check->severity)}, {"title", check->title},
                  {"explain", check->explain}});
  }
  return {{"id", id}, {"reported_by", by}};
}

void printExplanation(const std::string& id, const doctor::Rule* rule, const k8s::Rule* lint,
                      const logs::CatalogueEntry* logs, const validate::ValidateRule* check) {
  // validate's ids are its own (no other command reports a node count).
  if (check != nullptr && rule == nullptr && logs == nullptr && lint == nullptr) {
    fmt::print("{} ({})\n{}\n\n{}\n\nReported by `railkit validate` for each node, naming what is missing and what "
               "is there.\n",
               id, severityName(check->severity), check->title, check->explain);
    return;
  }
  if (rule != nullptr) {
    fmt::print("{} ({})\n{}\n\n{}\n", rule->id, severityName(rule->severity), rule->title, rule->explain);
    if (lint != nullptr) fmt::print("\n`railkit lint` also reports {} in manifests: {}.\n", id, lint->title);
    if (logs != nullptr) fmt::print("\n`railkit logs` also reports {} in logs: {}.\n", id, logs->title);
    return;
  }
  if (logs != nullptr) {
    fmt::print("{} ({})\n{}\n\n{}\n\nReported by `railkit logs` with the file, line and evidence lines.\n", id,
               severityName(logs->severity), logs->title, logs->explain);
    if (lint != nullptr) fmt::print("\n`railkit lint` also reports {} in manifests: {}.\n", id, lint->title);
    return;
  }
  fmt::print("{} ({}, lint)\n{}\n\n{}\n\nReported by `railkit lint` in manifests, with the file, line, object and field "
             "path.\n",
             id, severityName(lint->severity), lint->title, lint->explain);
}

int runExplain(const std::string& id, const OutputOptions& output) {
  const auto* rule = doctor::findRule(id);
  const auto* lint = findLintRule(id);
  const auto* logs = logs::findLogsEntry(id);
  const auto* check = validate::findValidateRule(id);
  if (rule == nullptr && lint == nullptr && logs == nullptr && check == nullptr) {
    return reportError(Error{
        ErrorCode::kUsage,
        fmt::format("unknown rule '{}' (railkit doctor|logs|lint|validate --list-rules list them)", id)});
  }
  auto st = emitOutput(output, explainDocument(id, rule, lint, logs, check), [&] { printExplanation(id, rule, lint, logs, check); });
  if (!st) return reportError(st.error());
  return kExitOk;
}

}  // namespace

void registerExplain(CLI::App& app, CommandContext& context) {
  auto* command = app.add_subcommand("explain", "Explain a finding id: why it matters and how to fix it");
  struct Options {
    std::string id;
    OutputOptions output;
  };
  auto opts = std::make_shared<Options>();
  command->add_option("rule", opts->id, "Finding id (railkit doctor|logs|lint|validate --list-rules list them)")
      ->required()
      ->type_name("ID");
  addOutputFlags(*command, opts->output);
  command->callback([&context, opts] { context.action = [opts] { return runExplain(opts->id, opts->output); }; });
}

}  // namespace railkit::cli
