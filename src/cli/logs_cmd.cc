// railkit logs FILE... [--json | --json-out F] [--expect-busbw GB/s |
//   --expect-line-rate[=F] [--root DIR] [--nodes N] [--nic-gbps R] [--collective NAME]] [--list-rules]
// Recognises NCCL debug logs, nccl-tests outputs and perftest outputs by
// content, analyses them as one job, and grades nccl-tests bandwidth.
#include <fmt/core.h>

#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli/commands.h"
#include "cli/flag_checks.h"
#include "cli/rule_list.h"
#include "core/collective_factors.h"
#include "core/strings.h"
#include "logs/catalogue.h"
#include "logs/report.h"
#include "model/collect.h"
#include "model/root_source.h"

namespace railkit::cli {
namespace {

struct LogsOptions {
  std::vector<std::string> files;
  OutputOptions output;
  std::optional<double> expect_busbw;
  std::string expect_line_rate;  // "" when absent, else the fraction
  std::string root;
  std::optional<int> nodes;
  std::optional<double> nic_gbps;
  std::string op;  // --collective
  bool list_rules = false;
};

Result<logs::GradeRequest> gradeRequest(const LogsOptions& opts) {
  logs::GradeRequest request;
  bool line_rate = !opts.expect_line_rate.empty();
  if (opts.expect_busbw && line_rate)
    return makeError(ErrorCode::kUsage, "--expect-busbw and --expect-line-rate exclude each other");
  if (!line_rate && (!opts.root.empty() || opts.nodes || opts.nic_gbps))
    return makeError(ErrorCode::kUsage, "--root, --nodes and --nic-gbps only apply with --expect-line-rate");
  if (!opts.op.empty() && !collectiveFromName(opts.op))
    return makeError(ErrorCode::kUsage, "--collective " + opts.op +
                                            ": expected all_reduce, all_gather, reduce_scatter, alltoall, "
                                            "broadcast, reduce or sendrecv");
  if (opts.expect_busbw) {
    request.expect_busbw_gbs = opts.expect_busbw;
  }
  if (line_rate) {
    auto fraction = parseLineRateFraction(opts.expect_line_rate);
    if (!fraction) return tl::unexpected(fraction.error());
    request.expect_line_rate = true;
    request.fraction = *fraction;
    if (opts.root.empty() && !opts.nic_gbps)
      return makeError(ErrorCode::kUsage,
                       "--expect-line-rate needs the NIC rate: --root DIR (a node snapshot) or --nic-gbps R");
    if (opts.root.empty() == false && opts.nic_gbps)
      return makeError(ErrorCode::kUsage, "give either --root or --nic-gbps, not both");
    if (opts.nic_gbps) {
      request.nic_gbps = opts.nic_gbps;
      request.nic_source = fmt::format("--nic-gbps {}", *opts.nic_gbps);
    }
    if (opts.nodes) {
      request.nodes = opts.nodes;
    }
  }
  request.op = opts.op;
  return request;
}

// R under --root: the node's active RDMA ports, only the HCAs NCCL used when
// the logs name them.
Status nicRateFromRoot(const std::string& root, const std::vector<std::string>& hcas,
                       logs::GradeRequest& request) {
  auto source = model::RootSource::open(root);
  if (!source) return tl::unexpected(source.error().withContext("--root"));
  auto inventory = model::collectInventory(source->fileRoot(), model::CollectOptions{});
  if (!inventory) return tl::unexpected(inventory.error().withContext("--root " + root));
  auto sum = logs::sumNicRates(*inventory, hcas);
  if (!sum && !hcas.empty()) sum = logs::sumNicRates(*inventory, {});
  if (!sum)
    return makeError(ErrorCode::kInvalidInput,
                     "--root " + root + ": no active RDMA port with a rate; give the rate with --nic-gbps");
  std::string parts;
  for (const auto& p : sum->parts) parts += (parts.empty() ? "" : " + ") + p;
  request.nic_gbps = sum->gbps;
  request.nic_source = fmt::format("--root {}: {}", root, parts);
  return okStatus();
}

int listLogsRules(const OutputOptions& output) {
  return listRuleTable("logs", logs::logsCatalogue(), output);
}

int runLogs(const LogsOptions& opts, CommandContext& context) {
  if (opts.list_rules) return listLogsRules(opts.output);
  if (opts.files.empty()) {
    return reportError(Error{ErrorCode::kUsage,
                             "logs: no files given: expected FILE..., NCCL logs, nccl-tests or perftest "
                             "output, - for stdin (see railkit logs --help)"});
  }
  auto request = gradeRequest(opts);
  if (!request) return reportError(request.error());
  std::vector<logs::InputReport> inputs;
  for (const auto& file : opts.files) {
    auto input = logs::analyzeFile(file);
    if (!input) return reportError(input.error());
    inputs.push_back(std::move(*input));
  }
  bool wants_document = opts.output.json || !opts.output.json_out.empty();
  auto report = logs::combineInputs(
      std::move(inputs), wants_document ? logs::InputDocuments::kNow : logs::InputDocuments::kLater);
  if (request->active()) {
    if (!opts.root.empty()) {
      auto st = nicRateFromRoot(opts.root, logs::jobHcas(report), *request);
      if (!st) return reportError(st.error());
    }
    logs::gradeReport(report, *request);
  }
  // Log text may hold any bytes: emitOutput dumps with U+FFFD for invalid
  // UTF-8, so the document is not copied through a dump and a re-parse here
  // (two more copies of a large table at the peak).
  // The human view is rendered first when it is printed: the document then
  // takes the job's facts over instead of copying them.
  // The human view alone (no --json, no --json-out) needs no document.
  std::string human = opts.output.json ? std::string() : logs::renderText(report);
  nlohmann::json doc = wants_document ? logs::takeReportJson(report) : nlohmann::json::object();
  auto st = emitOutput(opts.output, std::move(doc), [&] { std::cout << human; });
  if (!st) return reportError(st.error());
  for (const auto& input : report.inputs)
    if (input.stats.binary)
      return reportError(Error{ErrorCode::kInvalidInput, input.file + ": binary data, not a text log"});
  int status = logs::reportExitStatus(report) != 0 ? kExitFindings : kExitOk;
  context.keepUntilExit(std::move(report));
  context.keepUntilExit(std::move(doc));
  return status;
}

}  // namespace

void registerLogs(CLI::App& app, CommandContext& context) {
  auto* command = app.add_subcommand(
      "logs", "Analyse NCCL debug logs, nccl-tests and perftest outputs (recognised by content) as one job");
  auto opts = std::make_shared<LogsOptions>();
  command->add_option("files", opts->files, "Input files; - reads stdin")->type_name("FILE...");
  command->add_flag("--list-rules", opts->list_rules, "List every finding id (id, severity, title)");
  addOutputFlags(*command, opts->output);
  auto* busbw = command
                    ->add_option("--expect-busbw", opts->expect_busbw,
                                 "Grade: busbw at the largest size must reach this many GB/s")
                    ->type_name("GB/s")
                    ->check(finiteAtLeastZero("GB/s", false));
  command
      ->add_flag("--expect-line-rate{0.8}", opts->expect_line_rate,
                 "Grade against F x the node's NIC line rate, scaled by the bus factors (default F=0.8)")
      ->type_name("F")
      ->excludes(busbw);
  command
      ->add_option("--root", opts->root, "Node snapshot (directory or .tar.gz) whose RDMA NIC rates give R")
      ->type_name("DIR");
  command->add_option("--nic-gbps", opts->nic_gbps, "R: the sum of one node's RDMA NIC rates in Gb/s")
      ->type_name("R")
      ->check(finiteAtLeastZero("Gb/s per node", false));
  command->add_option("--nodes", opts->nodes, "Node count N (default: the hosts the logs show)")
      ->type_name("N")
      // The node bound of render's profiles (CLI::PositiveNumber would print DBL_MAX as its bound).
      ->check(CLI::Range(1, 100000));
  command->add_option("--collective", opts->op, "Collective of the table when the output does not name it")
      ->type_name("NAME");
  command->callback(
      [&context, opts] { context.action = [opts, &context] { return runLogs(*opts, context); }; });
}

}  // namespace railkit::cli
