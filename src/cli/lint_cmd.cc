// railkit lint FILE... [--schemas DIR]... [--json]: checks manifests for the
// recurring RDMA/NCCL/MPI mistakes and against OpenAPI/CRD schemas.
#include <fmt/format.h>

#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/rule_list.h"
#include "core/finding.h"
#include "core/input_file.h"
#include "k8s/lint/lint.h"
#include "k8s/schema.h"

namespace railkit::cli {
namespace {

struct LintOptions {
  std::vector<std::string> files;
  std::vector<std::string> schemas;  // --schemas, repeatable: the first DIR wins a kind
  OutputOptions output;
  bool list_rules = false;
};

// A manifest bundle (an operator's CRDs plus its objects) reaches a few MB;
// 16 MiB leaves room and keeps /dev/zero or a wrong file from being parsed.
constexpr std::size_t kMaxManifestBytes = std::size_t{16} << 20;

void printHuman(const std::vector<Finding>& findings) {
  size_t errors = 0, warnings = 0;
  for (const Finding& finding : findings) {
    if (finding.severity == Severity::kError) ++errors;
    if (finding.severity == Severity::kWarning) ++warnings;
    std::string where = finding.file.empty() ? "-" : finding.file;
    if (finding.line) where += ":" + std::to_string(*finding.line);
    std::cout << fmt::format("{}: {} [{}] {}", where, severityName(finding.severity), finding.id,
                             finding.message);
    if (!finding.object.empty()) std::cout << fmt::format(" ({}", finding.object);
    if (!finding.object.empty() && !finding.path.empty()) std::cout << " " << finding.path;
    if (!finding.object.empty()) std::cout << ")";
    std::cout << "\n";
    if (!finding.fix.empty() && finding.severity != Severity::kInfo)
      std::cout << "    fix: " << finding.fix << "\n";
  }
  std::cout << fmt::format("{} error(s), {} warning(s)\n", errors, warnings);
}

Result<std::unique_ptr<k8s::Manifest>> readManifest(const std::string& file) {
  auto text = readInputFile(file, {"manifest", kMaxManifestBytes, false});
  if (!text) return tl::unexpected(text.error());
  return k8s::loadManifest(*text, file);
}

int listLintRules(const OutputOptions& output) {
  return listRuleTable("lint", k8s::allRules(), output);
}

int runLint(const LintOptions& options) {
  if (options.list_rules) return listLintRules(options.output);
  if (options.files.empty())
    return reportError(
        Error{ErrorCode::kUsage,
              "lint: no files given: expected FILE..., YAML or JSON manifests (see railkit lint --help)"});
  k8s::LintInput input;
  // One unreadable file does not hide the others' findings: it is reported
  // in its line after them and the exit status stays 2.
  std::vector<Error> unreadable;
  for (const std::string& file : options.files) {
    auto manifest = readManifest(file);
    if (!manifest) {
      unreadable.push_back(manifest.error());
      continue;
    }
    input.manifests.push_back(std::move(*manifest));
  }
  auto reportUnreadable = [&] {
    int status = kExitUsage;
    for (const Error& error : unreadable) status = reportError(error);
    return status;
  };
  if (input.manifests.empty() && !unreadable.empty()) return reportUnreadable();
  std::optional<k8s::SchemaSet> schemas;
  if (!options.schemas.empty()) {
    auto loaded = k8s::SchemaSet::load(options.schemas);
    if (!loaded) return reportError(loaded.error());
    schemas = std::move(*loaded);
    input.schemas = &*schemas;
  }
  k8s::prepareLintInput(input);
  auto findings = k8s::runLint(input);
  auto status = emitOutput(options.output, nlohmann::json{{"findings", findingsToJson(findings)}},
                           [&] { printHuman(findings); });
  if (!status) return reportError(status.error());
  std::cout.flush();  // findings first, then the unreadable files' lines
  std::fflush(stdout);
  if (!unreadable.empty()) return reportUnreadable();
  return hasErrors(findings) ? kExitFindings : kExitOk;
}

}  // namespace

void registerLint(CLI::App& app, CommandContext& context) {
  auto* command =
      app.add_subcommand("lint", "Check Kubernetes manifests for RDMA/NCCL/MPI mistakes and schemas");
  auto options = std::make_shared<LintOptions>();
  command->add_option("files", options->files, "YAML or JSON manifest files")->type_name("FILE...");
  command->add_flag("--list-rules", options->list_rules, "List every rule (id, what it finds)");
  // One DIR per --schemas (repeat it): a list option would swallow the files.
  command
      ->add_option("--schemas", options->schemas,
                   "directory of Kubernetes OpenAPI v3 JSON documents and CRD YAML files (repeatable: "
                   "--schemas ../shared/schemas --schemas schemas)")
      ->type_name("DIR")
      ->allow_extra_args(false);
  addOutputFlags(*command, options->output);
  command->callback([&context, options] { context.action = [options] { return runLint(*options); }; });
}

}  // namespace railkit::cli
