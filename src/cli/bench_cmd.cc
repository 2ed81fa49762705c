// `railkit bench OP`: flags and environment -> BenchConfig, the launcher
// choice (--local and --nproc-per-node fork ranks, see bench/rank_processes.h;
// mpirun; env), and outcome -> exit status.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "bench/bench_flags.h"
#include "bench/collectives/collective.h"
#include "bench/rank_processes.h"
#include "bench/run.h"
#include "cli/bench_config.h"
#include "cli/commands.h"

namespace railkit::cli {
namespace {

using bench::BenchFlags;

struct BenchCli {
  BenchFlags flags;
  OutputOptions output;
};

// Runs one rank and turns its outcome into an exit status.
int runRank(const bench::BenchConfig& config, const OutputOptions& output) {
  bench::BenchConfig c = config;
  c.print_text = !output.json;
  auto outcome = bench::runBench(c, std::cout);
  std::cout.flush();
  if (!outcome) {
    return reportError(outcome.error().withContext("rank " + std::to_string(c.bootstrap_options.rank)));
  }
  if (outcome->is_root) {
    if (auto s = emitOutput(output, std::move(outcome->document), [] {}); !s) return reportError(s.error());
    for (const auto& line : outcome->failures) std::fprintf(stderr, "railkit: %s\n", line.c_str());
  }
  return outcome->failures.empty() ? kExitOk : kExitFindings;
}

int runLocal(const bench::BenchConfig& c, const OutputOptions& output) {
  return runLocalRanks(c, [&](const bench::BenchConfig& mine) { return runRank(mine, output); });
}

// Ranks rank .. rank+G-1 of an env-bootstrap job on this node
// (--nproc-per-node G, as torchrun's): each a child with its LOCAL_RANK,
// supervised like --local's.
int runNodeRanks(const bench::BenchConfig& c, int count, const OutputOptions& output) {
  if (auto s = probeBackendOnce(c); !s) return reportError(s.error());
  auto children = bench::forkRanks(count, [&](int i) {
    bench::BenchConfig mine = c;
    mine.bootstrap_options.rank += i;
    // The nccl backend picks its GPU by local rank.
    auto& env = mine.transport_options.env;
    env.erase(std::remove_if(env.begin(), env.end(),
                             [](const std::string& kv) { return kv.rfind("LOCAL_RANK=", 0) == 0; }),
              env.end());
    env.push_back("LOCAL_RANK=" + std::to_string(i));
    return runRank(mine, output);
  });
  if (!children) return reportError(children.error());
  return bench::superviseRanks(*children, kRankStatuses);
}

}  // namespace

void registerBench(CLI::App& app, CommandContext& context) {
  auto* cmd = app.add_subcommand("bench", "Data-plane test: nccl-tests style collectives over tcp/ucx/nccl");
  auto cli = std::make_shared<BenchCli>();
  BenchFlags* f = &cli->flags;
  std::string ops;
  for (const auto& c : bench::collectives()) ops += std::string(c.name) + " ";
  cmd->add_option("op", f->op, ops + "(collectives), all, p2p or pairs")->required();
  addBenchOptions(*cmd, *f, bench::Command::kBench);
  addOutputFlags(*cmd, cli->output);
  cmd->callback([&context, cli, cmd] {
    cli->flags.expect_line_rate_set = cmd->count("--expect-line-rate") > 0;
    context.action = [cli, &context] {
      const BenchFlags* f = &cli->flags;
      auto config = makeBenchConfig(*f, context.env);
      if (!config) return reportError(config.error());
      if (f->local > 0) return runLocal(*config, cli->output);
      if (f->nproc_per_node > 1) return runNodeRanks(*config, f->nproc_per_node, cli->output);
      return runRank(*config, cli->output);
    };
  });
}

}  // namespace railkit::cli
