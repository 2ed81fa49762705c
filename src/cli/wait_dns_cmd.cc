// railkit wait-dns --hostfile F --timeout S [--interval S] [--rewrite-fqdn
// --namespace NS [--service SVC] --output F2]: waits until every host of an MPI
// hostfile resolves, so an MPIJob launcher starts mpirun only when it can
// reach its workers. Exit 0 all resolve, 1 timeout (names the hosts left),
// 2 bad arguments or an unreadable hostfile. The timeout holds even when the
// nameserver never answers (lookups run in parallel and are abandoned at the
// deadline; see doctor/wait_dns.h).
#include <fmt/core.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/flag_checks.h"
#include "core/atomic_file.h"
#include "core/json_util.h"
#include "doctor/hostfile.h"
#include "doctor/resolver.h"
#include "doctor/wait_dns.h"

namespace railkit::cli {
namespace {

struct WaitDnsOptions {
  std::string hostfile;
  double timeout_s = 0;
  double interval_s = 2;
  bool rewrite_fqdn = false;
  doctor::FqdnOptions fqdn;
  std::string out;
  std::string hosts_file;
  OutputOptions output;
};

std::string seconds(doctor::Clock::Duration d) {
  return fmt::format("{:.1f}s", d.count() / 1000.0);
}

nlohmann::json toJson(const WaitDnsOptions& opts, const doctor::WaitResult& result) {
  nlohmann::json hosts = nlohmann::json::array();
  nlohmann::json unresolved = nlohmann::json::array();
  for (const auto& h : result.hosts) {
    nlohmann::json j = {{"name", h.name}, {"line", h.line}, {"resolved", h.resolved}, {"polls", h.polls}};
    if (h.resolved) {
      j["address"] = h.detail;
      j["resolved_after_s"] = h.resolved_after.count() / 1000.0;
    } else {
      j["error"] = h.detail;
      unresolved.push_back(h.name);
    }
    hosts.push_back(std::move(j));
  }
  return {{"hostfile", opts.hostfile},
          {"output", jsonOpt(opts.out)},
          {"all_resolved", result.all_resolved},
          {"polls", result.polls},
          {"elapsed_s", result.elapsed.count() / 1000.0},
          {"timeout_s", opts.timeout_s},
          {"hosts", hosts},
          {"unresolved", unresolved}};
}

// Prints what changed since the last call: each host the first time it is
// seen not resolving, each host as it comes up, and every 10 s who is still
// missing (so a launcher's log shows the wait is alive and on whom). The wait
// calls it at least every second while lookups hang.
class ProgressPrinter {
 public:
  void operator()(const doctor::WaitResult& state) {
    if (printed_.empty()) printed_.assign(state.hosts.size(), false);
    if (waiting_.empty()) waiting_.assign(state.hosts.size(), false);
    if (!state.all_resolved && state.elapsed - last_status_ >= std::chrono::seconds(10)) {
      last_status_ = state.elapsed;
      std::string names;
      size_t left = 0;
      for (const auto& h : state.hosts)
        if (!h.resolved && left++ < 3) names += (left > 1 ? ", " : "") + h.name;
      fmt::print("still waiting after {} for {} host(s): {}{}\n", seconds(state.elapsed), left, names,
                 left > 3 ? ", ..." : "");
    }
    for (size_t i = 0; i < state.hosts.size(); ++i) {
      const auto& h = state.hosts[i];
      if (h.resolved && !printed_[i]) {
        fmt::print("DNS OK    {} -> {} ({})\n", h.name, h.detail, seconds(h.resolved_after));
        printed_[i] = true;
      } else if (!h.resolved && !waiting_[i]) {
        fmt::print("DNS WAIT  {}: {}\n", h.name, h.answered ? h.detail : "no answer yet");
        waiting_[i] = true;
      }
    }
    std::fflush(stdout);
  }

 private:
  std::vector<bool> printed_;
  std::vector<bool> waiting_;
  doctor::Clock::Duration last_status_{0};
};

int runWaitDns(const WaitDnsOptions& opts, const Environment& env) {
  if (opts.rewrite_fqdn != !opts.out.empty())
    return reportError(Error{ErrorCode::kUsage, "--rewrite-fqdn and --output FILE go together"});

  auto text = doctor::readHostfileText(opts.hostfile);
  if (!text) return reportError(text.error());
  auto hostfile = doctor::parseHostfile(*text, opts.hostfile);
  if (!hostfile) return reportError(hostfile.error());
  if (hostfile->entries.empty())
    return reportError(Error{ErrorCode::kInvalidInput, "hostfile " + opts.hostfile + " lists no hosts"});

  if (opts.rewrite_fqdn) {
    // Rewrite first: a name that cannot be completed or an unwritable --output is
    // an argument error now, not after the wait. Then wait for the new names,
    // the ones mpirun will use.
    auto rewritten = doctor::rewriteHostfileFqdn(*text, *hostfile, opts.fqdn, opts.hostfile);
    if (!rewritten) return reportError(rewritten.error());
    // Atomic: a launcher reading --output never sees half a hostfile.
    if (auto st = writeFileAtomic(opts.out, *rewritten, "--output"); !st) return reportError(st.error());
    auto reparsed = doctor::parseHostfile(*rewritten, opts.out);
    if (!reparsed) return reportError(reparsed.error());
    hostfile = std::move(reparsed);
  }

  std::string hosts_file = opts.hosts_file;
  if (hosts_file.empty()) hosts_file = lookup(env, "RAILKIT_HOSTS_FILE").value_or("");
  auto resolver = doctor::makeResolver(hosts_file);
  if (!resolver) return reportError(resolver.error());

  doctor::SteadyClock clock;
  doctor::WaitOptions wait;
  wait.timeout = doctor::Clock::Duration(std::llround(opts.timeout_s * 1000));
  wait.interval = doctor::Clock::Duration(std::llround(opts.interval_s * 1000));
  const bool human = !opts.output.json;
  const auto hosts = hostfile->distinctHosts();
  if (human) {
    fmt::print("waiting up to {} for {} host(s) of {}{}\n", seconds(wait.timeout), hosts.size(),
               opts.rewrite_fqdn ? opts.out : opts.hostfile,
               hosts_file.empty() ? "" : " (names from hosts file " + hosts_file + ")");
    std::fflush(stdout);
  }
  ProgressPrinter printer;
  doctor::WaitProgress progress;
  if (human) progress = [&printer](const doctor::WaitResult& state) { printer(state); };
  auto result = doctor::waitForHosts(*hostfile, **resolver, clock, wait, progress);

  auto st = emitOutput(opts.output, toJson(opts, result), [&] {
    if (result.all_resolved) {
      fmt::print("all {} host(s) resolve after {} ({} poll(s))\n", result.hosts.size(),
                 seconds(result.elapsed), result.polls);
      if (!opts.out.empty()) fmt::print("wrote {}\n", opts.out);
      return;
    }
    std::string names;
    size_t left = 0;
    for (const auto& h : result.hosts)
      if (!h.resolved) names += (left++ ? ", " : "") + h.name;
    fmt::print("timeout after {}: {} of {} host(s) still do not resolve: {}\n", seconds(result.elapsed), left,
               result.hosts.size(), names);
  });
  if (!st) return reportError(st.error());
  return result.all_resolved ? kExitOk : kExitFindings;
}

}  // namespace

void registerWaitDns(CLI::App& app, CommandContext& context) {
  auto* command =
      app.add_subcommand("wait-dns", "Wait until every host of an MPI hostfile resolves (run before mpirun)");
  auto opts = std::make_shared<WaitDnsOptions>();
  command->add_option("--hostfile", opts->hostfile, "MPI hostfile (host, host slots=N, host:N)")
      ->required()
      ->type_name("FILE");
  command->add_option("--timeout", opts->timeout_s, "Give up after this many seconds (exit 1)")
      ->required()
      ->type_name("SECONDS")
      ->check(finiteRange(0, 86400, "seconds"));
  command->add_option("--interval", opts->interval_s, "Seconds between polls (default 2)")
      ->type_name("SECONDS")
      ->check(finiteRange(0.01, 3600, "seconds"));
  command->add_flag(
      "--rewrite-fqdn", opts->rewrite_fqdn,
      "Write the hostfile with <pod>.<service>.<namespace>.svc.<cluster-domain> names to --output, "
      "then wait for those names");
  command
      ->add_option("--namespace", opts->fqdn.ns, "Namespace for names without one (<pod> or <pod>.<service>)")
      ->type_name("NS");
  command->add_option("--service", opts->fqdn.service, "Headless Service for bare pod names")
      ->type_name("SVC");
  command
      ->add_option("--cluster-domain", opts->fqdn.cluster_domain,
                   "Cluster DNS domain (default cluster.local)")
      ->type_name("DOMAIN");
  command->add_option("--output", opts->out, "Where --rewrite-fqdn writes the rewritten hostfile")
      ->type_name("FILE");
  command
      ->add_option("--etc-hosts", opts->hosts_file,
                   "Resolve names from this hosts(5) file only, never DNS (tests, air-gapped dry runs; "
                   "also RAILKIT_HOSTS_FILE)")
      ->type_name("FILE");
  addOutputFlags(*command, opts->output);
  command->callback(
      [&context, opts] { context.action = [opts, &context] { return runWaitDns(*opts, context.env); }; });
}

}  // namespace railkit::cli
