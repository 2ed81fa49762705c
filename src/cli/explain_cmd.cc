// railkit explain RULE: why a finding id matters and how to fix it. An id
// names a problem, not a detector, and is declared once: an id several
// commands raise (core/shared_rules.h) is the same RuleInfo in each table,
// whose explanation says what each detector checks, so it is printed once
// followed by the commands that report it. validate's own ids (the node
// counts of phase 1) come from validate's table.
#include <fmt/core.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <utility>

#include "cli/commands.h"
#include "doctor/rule.h"
#include "fabric/check.h"
#include "k8s/lint/lint.h"
#include "logs/catalogue.h"
#include "validate/rules.h"

namespace railkit::cli {
namespace {

const RuleInfo* findLintRule(const std::string& id) {
  for (const auto& rule : k8s::allRules())
    if (id == rule.id) return &rule;
  return nullptr;
}

// What each command knows of one id: doctor's rule, the logs catalogue,
// lint's rule and validate's table, all read as RuleInfo (null: not reported).
struct Known {
  const RuleInfo* doctor;
  const RuleInfo* logs;
  const RuleInfo* lint;
  const RuleInfo* validate;
  const RuleInfo* fabric;
};

// --json: {"id", "reported_by": [{"command", "severity", "title", "explain", "fix"}]},
// one entry per command that reports the id, doctor first.
nlohmann::json explainDocument(const std::string& id, const Known& k) {
  nlohmann::json by = nlohmann::json::array();
  for (const auto& [command, info] :
       {std::pair{"doctor", k.doctor}, std::pair{"logs", k.logs}, std::pair{"lint", k.lint},
        std::pair{"validate", k.validate}, std::pair{"fabric", k.fabric}}) {
    if (info == nullptr) continue;
    by.push_back({{"command", command},
                  {"severity", severityName(info->severity)},
                  {"title", info->title},
                  {"explain", info->explain},
                  {"fix", info->fix}});
  }
  return {{"id", id}, {"reported_by", by}};
}

void printHead(const std::string& id, const RuleInfo& info, const char* suffix = "") {
  fmt::print("{} ({}{})\n{}\n\n{}\n{}\n", id, severityName(info.severity), suffix, info.title, info.explain,
             info.fix);
}

void printExplanation(const std::string& id, const Known& k) {
  // fabric's ids are its own: what the switches see, no node reports them.
  if (k.fabric != nullptr && k.doctor == nullptr) {
    printHead(id, *k.fabric);
    fmt::print(
        "\nReported by `railkit fabric` from ibnetdiscover's output, naming the switch, the port, the "
        "node and the HCA.\n");
    return;
  }
  // validate's ids are its own (no other command reports a node count).
  if (k.validate != nullptr && k.doctor == nullptr && k.logs == nullptr && k.lint == nullptr) {
    printHead(id, *k.validate);
    fmt::print("\nReported by `railkit validate` for each node, naming what is missing and what is there.\n");
    return;
  }
  if (k.doctor != nullptr) {
    printHead(id, *k.doctor);
    if (k.lint != nullptr)
      fmt::print(
          "\nReported by `railkit doctor` in the running process and by `railkit lint` in manifests;\n"
          "what each of them checks is said above.\n");
    if (k.logs != nullptr) fmt::print("\n`railkit logs` also reports {} in logs: {}.\n", id, k.logs->title);
    if (k.fabric != nullptr)
      fmt::print(
          "\n`railkit fabric` also reports {} from what sminfo printed; what it checks is said above.\n", id);
    return;
  }
  if (k.logs != nullptr) {
    printHead(id, *k.logs);
    fmt::print("\nReported by `railkit logs` with the file, line and evidence lines.\n");
    if (k.lint != nullptr)
      fmt::print("\n`railkit lint` also reports {} in manifests: {}.\n", id, k.lint->title);
    return;
  }
  printHead(id, *k.lint, ", lint");
  fmt::print("\nReported by `railkit lint` in manifests, with the file, line, object and field path.\n");
}

int runExplain(const std::string& id, const OutputOptions& output) {
  Known k{doctor::findRule(id), logs::findLogsEntry(id), findLintRule(id), validate::findValidateRule(id),
          fabric::findFabricCheck(id)};
  if (k.doctor == nullptr && k.lint == nullptr && k.logs == nullptr && k.validate == nullptr &&
      k.fabric == nullptr) {
    return reportError(Error{
        ErrorCode::kUsage,
        fmt::format("unknown rule '{}' (railkit doctor|logs|lint|validate|fabric --list-rules list them)",
                    id)});
  }
  auto st = emitOutput(output, explainDocument(id, k), [&] { printExplanation(id, k); });
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
  command
      ->add_option("rule", opts->id,
                   "Finding id (railkit doctor|logs|lint|validate|fabric --list-rules list them)")
      ->required()
      ->type_name("ID");
  addOutputFlags(*command, opts->output);
  command->callback(
      [&context, opts] { context.action = [opts] { return runExplain(opts->id, opts->output); }; });
}

}  // namespace railkit::cli
