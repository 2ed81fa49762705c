// railkit exporter [--listen ADDR:PORT] [--root DIR|FILE.tar.gz] [--interval S]
// [--pods]: serves Prometheus metrics (RDMA ports, their counters, doctor
// findings, GPU/NIC distances, per-pod RDMA counters) on /metrics and a liveness answer on /healthz, until
// SIGINT or SIGTERM. The work is in exporter/; this file has the flags.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "cli/commands.h"
#include "cli/flag_checks.h"
#include "core/interrupt.h"
#include "exporter/cache.h"
#include "exporter/server.h"
#include "model/root_source.h"

namespace railkit::cli {
namespace {

struct ExporterOptions {
  std::string listen = exporter::kDefaultListen;
  std::string root;
  double interval_s = 15;
  bool pods = false;
};

int runExporter(const ExporterOptions& opts) {
  auto address = exporter::parseListen(opts.listen);
  if (!address) return reportError(address.error());
  // Alive until everything below is torn down: SIGINT/SIGTERM only set a
  // flag, the server and the refresher stop and are joined, and then the
  // signal ends the process as it would have (core/interrupt.h).
  CleanupScope scope;
  std::optional<model::RootSource> source;
  FileRoot root("/");
  if (!opts.root.empty()) {
    auto opened = model::RootSource::open(opts.root);
    if (!opened) return reportError(opened.error());
    source.emplace(std::move(*opened));
    root = source->fileRoot();
  }
  exporter::CacheOptions cache_options;
  cache_options.interval = std::chrono::milliseconds(std::llround(opts.interval_s * 1000));
  cache_options.pods = opts.pods;
  cache_options.notice = [](const std::string& line) {
    std::fprintf(stderr, "railkit exporter: %s\n", line.c_str());
    std::fflush(stderr);
  };
  auto cache = exporter::MetricsCache::start(root, cache_options);
  if (!cache) return reportError(cache.error());
  auto st = exporter::serve(
      *address, **cache, [] { return interruptRequested(); },
      [&](const exporter::ListenAddress& bound) {
        bool v6 = bound.host.find(':') != std::string::npos;
        std::printf("railkit exporter: serving http://%s%s%s:%d/metrics (root %s, every %g s)\n",
                    v6 ? "[" : "", bound.host.c_str(), v6 ? "]" : "", bound.port,
                    opts.root.empty() ? "/" : opts.root.c_str(), opts.interval_s);
        std::fflush(stdout);
      });
  if (!st) return reportError(st.error());
  return kExitOk;
}

}  // namespace

void registerExporter(CLI::App& app, CommandContext& context) {
  auto* command = app.add_subcommand(
      "exporter", "Serve Prometheus metrics for RDMA ports, RoCE congestion and readiness");
  auto opts = std::make_shared<ExporterOptions>();
  command
      ->add_option("--listen", opts->listen,
                   "Listen on this address only (default 127.0.0.1:9877; port 0 picks a free one)")
      ->type_name("ADDR:PORT");
  command->add_option("--root", opts->root, "Read a snapshot (directory or .tar.gz) instead of this machine");
  command
      ->add_option("--interval", opts->interval_s, "Read sysfs at most every this many seconds (default 15)")
      ->type_name("SECONDS")
      ->check(finiteRange(1, 3600, "seconds"));
  command->add_flag("--pods", opts->pods,
                    "Also serve the RDMA counters of every pod's network namespace (RDMA netlink from inside "
                    "each, ib_core netns_mode exclusive); needs root with CAP_SYS_ADMIN and CAP_SYS_PTRACE "
                    "and the node's /proc under the root (--root /host with /host/proc, or / with hostPID). "
                    "Without RDMA netlink it says so once and serves the rest");
  command->callback([&context, opts] { context.action = [opts] { return runExporter(*opts); }; });
}

}  // namespace railkit::cli
