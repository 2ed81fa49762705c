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
#include "cli/read_root.h"
#include "cli/rule_list.h"
#include "core/strings.h"
#include "model/collect.h"
#include "validate/report.h"
#include "validate/rules.h"
#include "validate/run.h"
#include "validate/validate_options.h"

namespace railkit::cli {
namespace {

// validate's own options (validate/validate_options.h), bench's shared ones
// and the output flags.
struct ValidateCli : validate::ValidateFlags {
  bench::BenchFlags flags;
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
  // This node's switch ports as its lldpd heard them; without lldpd the
  // node says why and is not failed for it.
  node.lldp = validate::readNodeLldp(cli.lldpctl, node.host, node.inventory, env);
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
  // Its bounds were checked while parsing (validate/validate_options.cc).
  if (!bytes) return tl::unexpected(bytes.error().withContext("--pairs-bytes"));
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
  cli->flags = bench::defaultFlags(bench::Command::kValidate);
  bench::BenchFlags* f = &cli->flags;
  validate::ValidateFlags& own = *cli;
  for (const auto& o : validate::validateOptions())
    addTabledOption(*cmd, own, o, o.help, !bench::defaultText(o, bench::Command::kValidate).empty());
  addBenchOptions(*cmd, *f, bench::Command::kValidate);
  addOutputFlags(*cmd, cli->output);
  cmd->callback([&context, cli, cmd] {
    cli->flags.op = "all_reduce";
    cli->flags.expect_line_rate_set = cmd->count("--expect-line-rate") > 0;
    context.action = [cli, &context] { return runValidateCommand(*cli, context.env); };
  });
}

}  // namespace railkit::cli
