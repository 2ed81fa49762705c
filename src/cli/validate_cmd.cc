// `railkit validate`: one launch on every node certifies the cluster's RDMA
// fabric (validate/run.h has the phases). The flags are bench's launch flags
// plus what phase 1 expects of a node; rank 0's exit status is the verdict.
#include <unistd.h>

#include <iostream>
#include <memory>

#include "bench/bench_flags.h"
#include "bench/collectives/collective.h"
#include "bench/sweep.h"
#include "cli/bench_config.h"
#include "cli/commands.h"
#include "cli/flag_checks.h"
#include "cli/read_root.h"
#include "cli/rule_list.h"
#include "core/strings.h"
#include "model/collect.h"
#include "validate/report.h"
#include "validate/rules.h"
#include "validate/run.h"

namespace railkit::cli {
namespace {

struct ValidateCli {
  bench::BenchFlags flags;
  std::string root;
  bool live_net = false;  // --live-net: the network state from this namespace even with --root
  std::optional<int> expect_nics, expect_gpus;
  std::string rails;
  std::string ops = "all_reduce";
  std::string pairs_bytes = "64M";
  int pairs_iters = 5;
  double slow_fraction = 0.8;
  double collectives_budget = 60;
  bool fail_fast = false;
  bool list_rules = false;
  OutputOptions output;
};

// The ids validate raises itself; phase 1 also reports doctor's (doctor --list-rules).
int listValidateRules(const OutputOptions& output) {
  return listRuleTable("validate", validate::allValidateRules(), output);
}

Result<validate::NodeInput> readNode(const ValidateCli& cli, const Environment& env,
                                     const bench::BenchConfig& c, const FileRoot& files) {
  model::CollectOptions collect;
  collect.live_network = cli.live_net;
  auto inventory = model::collectInventory(files, collect);
  if (!inventory) return tl::unexpected(inventory.error().withContext(cli.root.empty() ? "/" : cli.root));
  if (!cli.root.empty()) inventory->root = cli.root;
  validate::NodeInput node;
  node.inventory = std::move(*inventory);
  node.expect.nics = cli.expect_nics;
  node.expect.gpus = cli.expect_gpus;
  node.expect.hca_spec = cli.rails.empty() ? lookup(env, "NCCL_IB_HCA").value_or("") : cli.rails;
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  node.host = host;
  // makeBenchConfig read this node's data NIC rate (from --root when given);
  // it is this node's, and rank 0 grades against the slowest node's.
  if (!cli.flags.nic_gbps) {
    node.nic_gbps = c.nic_gbps;
    node.nic_rate_source = c.nic_rate_source;
  }
  return node;
}

Result<validate::ValidateConfig> makeValidateConfig(const ValidateCli& cli,
                                                    const bench::BenchConfig& bench_config) {
  validate::ValidateConfig v;
  v.ops.clear();
  v.bench = bench_config;
  for (auto op : split(cli.ops, ',')) {
    if (op.empty()) continue;
    if (!bench::findCollective(op)) {
      return makeError(ErrorCode::kUsage,
                       "--ops: unknown collective '" + std::string(op).substr(0, 40) +
                           "' (all_reduce all_gather reduce_scatter broadcast reduce alltoall "
                           "sendrecv)");
    }
    v.ops.emplace_back(op);
  }
  if (v.ops.empty())
    return makeError(ErrorCode::kUsage, "--ops: expected a comma-separated list of collectives");
  auto bytes = bench::parseSize(cli.pairs_bytes);
  if (!bytes) return tl::unexpected(bytes.error().withContext("--pairs-bytes"));
  if (*bytes == 0 || *bytes > (1ull << 32)) {
    return makeError(ErrorCode::kUsage,
                     "--pairs-bytes: expected 1 byte to 4G, found '" + cli.pairs_bytes + "'");
  }
  v.pairs.bytes = *bytes;
  v.pairs.iters = cli.pairs_iters;
  v.pairs.warmup = 1;
  v.pairs.fraction = cli.slow_fraction;
  v.fail_fast = cli.fail_fast;
  v.collectives_budget_seconds = cli.collectives_budget;
  v.print_text = !cli.output.json;
  // Without --nic-gbps, rank 0 fills the bound from phase 1 (the slowest node).
  if (!cli.flags.nic_gbps) {
    v.bench.nic_gbps.reset();
    v.bench.nic_rate_source.clear();
  }
  return v;
}

int runValidateRank(const validate::ValidateConfig& config, const validate::NodeInput& node,
                    const OutputOptions& output) {
  auto outcome = validate::runValidate(config, node, std::cout);
  std::cout.flush();
  if (!outcome)
    return reportError(
        outcome.error().withContext("rank " + std::to_string(config.bench.bootstrap_options.rank)));
  if (!outcome->is_root) return kExitOk;
  // Stamped in place, not copied (a 1024-node document is tens of MB); the
  // verdict text reads the same, stamped document.
  auto st = emitOutput(output, std::move(outcome->document),
                       [&] { std::cout << validate::formatVerdict(outcome->document); });
  if (!st) return reportError(st.error());
  if (outcome->verdict == "incomplete") return kExitIncomplete;
  return outcome->verdict == "pass" ? kExitOk : kExitFindings;
}

int runValidateCommand(const ValidateCli& cli, const Environment& env) {
  if (cli.list_rules) return listValidateRules(cli.output);
  if (cli.flags.nproc_per_node > 0)
    return reportError(Error{ErrorCode::kUsage, "validate runs one rank per node"});
  auto read_root = ReadRoot::open(cli.root);
  if (!read_root) return reportError(read_root.error());
  auto bench_config = makeBenchConfig(cli.flags, env, read_root->files());
  if (!bench_config) return reportError(bench_config.error());
  auto config = makeValidateConfig(cli, *bench_config);
  if (!config) return reportError(config.error());
  auto node = readNode(cli, env, *bench_config, read_root->files());
  if (!node) return reportError(node.error());
  if (cli.flags.local > 0) {
    return runLocalRanks(config->bench, [&](const bench::BenchConfig& rank_config) {
      validate::ValidateConfig mine = *config;
      mine.bench = rank_config;
      return runValidateRank(mine, *node, cli.output);
    });
  }
  return runValidateRank(*config, *node, cli.output);
}

}  // namespace

void registerValidate(CLI::App& app, CommandContext& context) {
  auto* cmd = app.add_subcommand(
      "validate",
      "Certify a cluster's RDMA fabric in one launch: every node, their consistency, every "
      "link and the collectives (one rank per node)");
  auto cli = std::make_shared<ValidateCli>();
  bench::BenchFlags* f = &cli->flags;
  f->min_bytes = "1M";
  f->max_bytes = "64M";
  f->factor = "4";
  f->iters = 10;
  f->warmup = 2;
  cmd->add_option("--root", cli->root,
                  "Phase 1 reads this snapshot (directory or .tar.gz) instead of this machine");
  cmd->add_flag("--live-net", cli->live_net,
                "With --root: take addresses (the subnet plan's), routes, policy rules, IPv4 sysctls and DCB "
                "from this machine's network namespace instead of the snapshot's railkit/live.json");
  cmd->add_option("--expect-nics", cli->expect_nics,
                  "active RDMA ports each node must have on its data rails")
      ->check(CLI::Range(0, 1024));
  cmd->add_option("--expect-gpus", cli->expect_gpus, "GPUs each node must have")->check(CLI::Range(0, 1024));
  cmd->add_option("--rails", cli->rails,
                  "the data rails, in NCCL_IB_HCA syntax (default NCCL_IB_HCA; unset: every RDMA port)");
  cmd->add_option("--ops", cli->ops, "collectives of phase 4, comma-separated")->capture_default_str();
  cmd->add_option("-b,--minbytes", f->min_bytes, "phase 4: smallest size (K/M/G suffixes)")
      ->capture_default_str()
      ->check(sizeValue());
  cmd->add_option("-e,--maxbytes", f->max_bytes, "phase 4: largest size")
      ->capture_default_str()
      ->check(sizeValue());
  cmd->add_option("-f,--stepfactor", f->factor, "phase 4: multiply the size by this each step")
      ->capture_default_str();
  cmd->add_option("-n,--iters", f->iters, "phase 4: timed iterations")
      ->capture_default_str()
      ->check(wholeNumber(1, bench::kMaxIters,
                          "at least 1 timed iteration (up to " + std::to_string(bench::kMaxIters) + ")"));
  cmd->add_option("-w,--warmup_iters", f->warmup, "phase 4: warm-up iterations")
      ->capture_default_str()
      ->check(wholeNumber(0, bench::kMaxIters));
  cmd->add_option("--collectives-budget", cli->collectives_budget,
                  "phase 4: seconds its sweep may take at the slowest link phase 3 measured; larger sizes "
                  "(then iterations) are cut to fit")
      ->capture_default_str()
      ->check(finiteRange(0, 86400, "seconds", true));
  cmd->add_option("--pairs-bytes", cli->pairs_bytes, "phase 3: bytes each pair moves per iteration")
      ->capture_default_str();
  cmd->add_option("--pairs-iters", cli->pairs_iters, "phase 3: iterations per pair")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  cmd->add_option("--slow-fraction", cli->slow_fraction,
                  "phase 3: a link below this fraction of the median is slow")
      ->capture_default_str()
      ->check(finiteRange(0, 1, "a fraction of the median", true));
  cmd->add_flag("--fail-fast", cli->fail_fast, "stop after phases 1-2 when a node fails or differs");
  cmd->add_flag("--list-rules", cli->list_rules,
                "List the ids validate raises itself (phase 1 also reports doctor's: doctor --list-rules)");
  addLaunchFlags(*cmd, *f);
  addOutputFlags(*cmd, cli->output);
  cmd->callback([&context, cli, cmd] {
    cli->flags.op = "all_reduce";
    cli->flags.expect_line_rate_set = cmd->count("--expect-line-rate") > 0;
    context.action = [cli, &context] { return runValidateCommand(*cli, context.env); };
  });
}

}  // namespace railkit::cli
