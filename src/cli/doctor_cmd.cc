// railkit doctor [--root DIR|FILE.tar.gz [--live-net]] [--json] [--list-rules] [--hostfile F]: runs the
// rule catalog over the inventory and prints findings with their fixes.
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

#include "cli/commands.h"
#include "cli/flag_checks.h"
#include "cli/read_root.h"
#include "cli/rule_list.h"
#include "core/interrupt.h"
#include "doctor/rule.h"
#include "doctor/wait_dns.h"
#include "model/collect.h"
#include "model/root_source.h"

namespace railkit::cli {
namespace {

struct DoctorOptions {
  std::string root;
  bool live_net = false;  // --live-net: network state from this namespace even with --root
  bool list_rules = false;
  std::string hostfile;      // --hostfile: resolve every host of an MPI hostfile
  std::string hosts_file;    // --etc-hosts: resolve from this hosts(5) file only
  double dns_timeout_s = 5;  // --dns-timeout: bound on all --hostfile lookups together
  OutputOptions output;
};

int listDoctorRules(const OutputOptions& output) {
  return listRuleTable("doctor", doctor::allRules(), output);
}

void printHuman(const std::string& root, const std::vector<Finding>& findings, int errors, int warnings,
                int infos) {
  fmt::print("railkit doctor: {}\n\n", root);
  Severity last = Severity::kInfo;
  bool first = true;
  for (const auto& f : findings) {
    if (first || f.severity != last) {
      fmt::print("{}{}:\n", first ? "" : "\n",
                 f.severity == Severity::kError     ? "ERRORS"
                 : f.severity == Severity::kWarning ? "WARNINGS"
                                                    : "INFO");
      last = f.severity;
      first = false;
    }
    fmt::print("  [{}] {}: {}\n", f.id, f.subject, f.message);
    for (const auto& e : f.evidence)
      fmt::print("      evidence: {}{}: {}\n", e.source, e.line ? fmt::format(":{}", *e.line) : "", e.text);
    if (!f.fix.empty()) fmt::print("      fix: {}\n", f.fix);
  }
  if (findings.empty()) fmt::print("no problems found\n");
  fmt::print("\n{} error(s), {} warning(s), {} info; `railkit explain <id>` for details\n", errors, warnings,
             infos);
}

// --hostfile: parse and resolve now (an unreadable hostfile is exit 2).
Result<std::optional<doctor::HostfileCheck>> checkHostfile(const DoctorOptions& opts,
                                                           const Environment& env) {
  if (opts.hostfile.empty()) return std::optional<doctor::HostfileCheck>{};
  auto hostfile = doctor::loadHostfile(opts.hostfile);
  if (!hostfile) return tl::unexpected(hostfile.error());
  std::string hosts_file =
      opts.hosts_file.empty() ? lookup(env, "RAILKIT_HOSTS_FILE").value_or("") : opts.hosts_file;
  auto resolver = doctor::makeResolver(hosts_file);
  if (!resolver) return tl::unexpected(resolver.error());
  // Bounded: a dead nameserver makes the hosts it cannot answer unresolved
  // after --dns-timeout instead of hanging doctor.
  doctor::SteadyClock clock;
  return doctor::resolveHostfile(*hostfile, opts.hostfile, **resolver, clock,
                                 doctor::Clock::Duration(std::llround(opts.dns_timeout_s * 1000)));
}

int runDoctor(const DoctorOptions& opts, const Environment& env) {
  if (opts.list_rules) return listDoctorRules(opts.output);
  auto hostfile = checkHostfile(opts, env);
  if (!hostfile) return reportError(hostfile.error());
  auto read_root = ReadRoot::open(opts.root);
  if (!read_root) return reportError(read_root.error());
  FileRoot& root = read_root->files();
  model::CollectOptions collect;
  collect.live_network = opts.live_net;
  auto inv = model::collectInventory(root, collect);
  if (!inv) return reportError(inv.error());
  // Ctrl-C while reading an extracted --root: stop before printing.
  if (auto st = checkInterrupt("--root"); !st) return reportError(st.error());
  if (!opts.root.empty()) inv->root = opts.root;
  auto findings = doctor::runRules(doctor::DoctorInput{*inv, *hostfile ? &**hostfile : nullptr});
  int errors = 0, warnings = 0, infos = 0;
  for (const auto& f : findings)
    (f.severity == Severity::kError ? errors : f.severity == Severity::kWarning ? warnings : infos)++;
  nlohmann::json doc = {{"root", inv->root},
                        {"findings", findingsToJson(findings)},
                        {"summary", {{"errors", errors}, {"warnings", warnings}, {"info", infos}}}};
  // Values read from a snapshot may be any bytes; JSON output must stay valid UTF-8.
  doc = nlohmann::json::parse(doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  auto st = emitOutput(opts.output, doc, [&] { printHuman(inv->root, findings, errors, warnings, infos); });
  if (!st) return reportError(st.error());
  return errors > 0 ? kExitFindings : kExitOk;
}

}  // namespace

void registerDoctor(CLI::App& app, CommandContext& context) {
  auto* command =
      app.add_subcommand("doctor", "Check whether this node or pod is ready for RDMA with NCCL/MPI");
  auto opts = std::make_shared<DoctorOptions>();
  command->add_option("--root", opts->root, "Read a snapshot (directory or .tar.gz) instead of this machine");
  command->add_flag("--live-net", opts->live_net,
                    "With --root: take addresses, routes, policy rules, IPv4 sysctls and DCB from this "
                    "machine's network namespace instead of the snapshot's railkit/live.json");
  command->add_flag("--list-rules", opts->list_rules, "List every rule (id, severity, title)");
  command
      ->add_option("--hostfile", opts->hostfile, "Also check that every host of this MPI hostfile resolves")
      ->type_name("FILE");
  command
      ->add_option(
          "--etc-hosts", opts->hosts_file,
          "Resolve --hostfile names from this hosts(5) file only, never DNS (also RAILKIT_HOSTS_FILE)")
      ->type_name("FILE");
  command
      ->add_option("--dns-timeout", opts->dns_timeout_s,
                   "Give --hostfile lookups at most this many seconds in all (default 5); hosts "
                   "without an answer by then are reported unresolved")
      ->type_name("SECONDS")
      ->check(finiteRange(0.1, 3600, "seconds"));
  addOutputFlags(*command, opts->output);
  command->callback(
      [&context, opts] { context.action = [opts, &context] { return runDoctor(*opts, context.env); }; });
}

}  // namespace railkit::cli
