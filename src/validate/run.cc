#include "validate/run.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <set>

#include "bench/transport.h"
#include "core/strings.h"
#include "validate/collective_plan.h"
#include "validate/consistency.h"
#include "validate/fabric_lldp.h"
#include "validate/node_report.h"
#include "validate/report.h"

namespace railkit::validate {
namespace {

constexpr int kPhases = 4;

std::vector<nlohmann::json> parseReports(const std::vector<std::string>& blobs) {
  std::vector<nlohmann::json> reports;
  for (std::size_t r = 0; r < blobs.size(); ++r)
    reports.push_back(parseNodeReport(blobs[r], static_cast<int>(r)));
  return reports;
}

// Node names for messages: the host name, or "host (rN)" where hosts repeat
// (network namespaces on one machine, or a launcher's generic names).
std::vector<std::string> nodeLabels(const std::vector<nlohmann::json>& reports) {
  std::map<std::string, int> seen;
  for (const auto& r : reports) ++seen[r.value("host", std::string())];
  std::vector<std::string> labels;
  for (const auto& r : reports) {
    std::string host = r.value("host", std::string());
    labels.push_back(seen[host] > 1 || host.empty()
                         ? fmt::format("{} (r{})", host.empty() ? "?" : host, r.value("rank", 0))
                         : host);
  }
  return labels;
}

// Phase 2: the value outliers, then the subnet plan's (its outliers appended).
SubnetPlans compareNodes(const std::vector<nlohmann::json>& reports, const std::vector<std::string>& labels,
                         std::vector<Outlier>& outliers) {
  std::vector<NodeAttributes> nodes;
  for (std::size_t i = 0; i < reports.size(); ++i) {
    auto attributes = attributesFromJson(reports[i]["attributes"]);
    // parseNodeReport checked both members; a failed report has none.
    if (attributes) (void)applyAttributeLabels(reports[i]["attribute_labels"], *attributes);
    nodes.push_back({labels[i], attributes ? *attributes : std::vector<NodeAttribute>{}});
  }
  outliers = findOutliers(nodes);
  SubnetPlans plans = findSubnetPlans(nodes);
  outliers.insert(outliers.end(), plans.outliers.begin(), plans.outliers.end());
  return plans;
}

// The slowest node bounds a collective: its data NIC rate is the graded bound.
void discoverLineRate(const std::vector<nlohmann::json>& reports, const std::vector<std::string>& labels,
                      bench::BenchConfig& c) {
  if (!c.expect_line_rate || c.nic_gbps) return;
  std::optional<double> slowest;
  std::string source;
  for (std::size_t i = 0; i < reports.size(); ++i) {
    const auto& rate = reports[i]["nic_gbps"];
    if (!rate.is_number()) {
      c.nic_rate_source =
          fmt::format("{}: {}", labels[i], reports[i].value("nic_rate_source", std::string("unknown")));
      return;
    }
    if (!slowest || rate.get<double>() < *slowest) {
      slowest = rate.get<double>();
      source =
          fmt::format("slowest node {}: {}", labels[i], reports[i].value("nic_rate_source", std::string()));
    }
  }
  c.nic_gbps = slowest;
  c.nic_rate_source = source;
}

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string progress(int phase, const std::string& what) {
  return fmt::format("# phase {}/{} {}\n", phase, kPhases, what);
}

struct MeasuredLink {
  int a = 0, b = 0;
  double gbps = 0;  // per direction
};

// The slowest link in bench pairs' document (rank 0), or nothing when no
// pair was measured.
std::optional<MeasuredLink> slowestLink(const nlohmann::json& pairs) {
  std::optional<MeasuredLink> slowest;
  if (!pairs.is_object()) return slowest;
  for (const auto& l : pairs.value("links", nlohmann::json::array())) {
    if (!l.is_object()) continue;
    double gbps = l.value("bw_gbps", 0.0);
    if (gbps > 0 && (!slowest || gbps < slowest->gbps))
      slowest = MeasuredLink{l.value("a", 0), l.value("b", 0), gbps};
  }
  return slowest;
}

// Phase 4's sweep, the same on every rank: rank 0 sends the slowest link's
// rate and each rank cuts the sweep from it (collective_plan.h). Being an
// allgather, it is also where every rank waits until all have left phase 3.
// Without that, the ranks whose last pair was quick start phase 4 and wait
// on the data plane for a peer still in a slow pair: the stall timer
// (--stall-timeout) counts that as no progress and a slow node ended the run
// "incomplete" instead of failing it.
Result<CollectivePlan> agreePlan(bench::Bootstrap& boot, const ValidateConfig& config,
                                 const std::vector<const bench::Collective*>& ops,
                                 const std::optional<MeasuredLink>& slowest) {
  std::string mine = boot.rank() == 0 && slowest ? fmt::format("{:.17g}", slowest->gbps) : "";
  auto all = boot.allgather(mine);
  if (!all) return tl::unexpected(all.error().withContext("every rank's end of the links"));
  const auto& sweep = config.bench.sweep;
  SweepRequest request{sweep.sizes, sweep.iters, sweep.warmup, sweep.check, {}, boot.size()};
  for (const bench::Collective* op : ops) request.ops.push_back(op->op);
  double gbps = all->empty() ? 0 : parseDouble((*all)[0]).value_or(0);
  return planCollectives(request, gbps, config.collectives_budget_seconds);
}

struct PlanDescription {
  nlohmann::json json;  // the document's phases.collectives.sizing
  std::string line;     // what was cut and why; empty when nothing was
};

PlanDescription describePlan(const ValidateConfig& config, const CollectivePlan& plan,
                             const std::optional<MeasuredLink>& slowest,
                             const std::vector<std::string>& labels) {
  const auto& asked = config.bench.sweep;
  PlanDescription d;
  d.json = {{"budget_seconds", config.collectives_budget_seconds},
            {"capped", plan.capped},
            {"sizes", plan.sizes},
            {"iters", plan.iters},
            {"warmup", plan.warmup},
            {"slowest_link", nullptr}};
  if (!slowest) return d;
  d.json["slowest_link"] = {{"a", slowest->a}, {"b", slowest->b}, {"gbps", slowest->gbps}};
  d.json["estimated_seconds"] = plan.estimated_seconds;
  if (!plan.capped || asked.sizes.empty() || plan.sizes.empty()) return d;
  auto label = [&](int r) {
    return r >= 0 && r < static_cast<int>(labels.size()) ? labels[static_cast<std::size_t>(r)] : "?";
  };
  std::string iterations = plan.iters == asked.iters && plan.warmup == asked.warmup
                               ? ""
                               : fmt::format(", {} iteration(s) and {} warm-up (asked {} and {})", plan.iters,
                                             plan.warmup, asked.iters, asked.warmup);
  d.line = fmt::format(
      "sizes capped at {} (asked {}-{}){} to fit {:g} s (--collectives-budget): the slowest link "
      "r{}-r{} ({} - {}) measured {:.3g} Gb/s, estimated {:.0f} s",
      sizeText(plan.sizes.back()), sizeText(asked.sizes.front()), sizeText(asked.sizes.back()), iterations,
      config.collectives_budget_seconds, slowest->a, slowest->b, label(slowest->a), label(slowest->b),
      slowest->gbps, plan.estimated_seconds);
  return d;
}

using Say = std::function<void(const std::string&)>;

// Phases 1 and 2: this node, then every report to rank 0, which labels the
// nodes and compares them.
Status checkNodes(const ValidateConfig& config, const NodeInput& node, bench::Bootstrap& boot, Report& report,
                  std::vector<std::string>& labels, const Say& say) {
  const int me = boot.rank(), n = boot.size();
  auto phase_start = std::chrono::steady_clock::now();
  NodeCheck check = checkNode(node.inventory, node.expect);
  std::string mine =
      makeNodeReport(me, node, check).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (mine.size() > bench::Bootstrap::kMaxGatherBytes) {
    // An inventory that large is not a node's; the report goes without it.
    auto slim = makeNodeReport(me, node, check);
    slim["inventory"] = {{"omitted", fmt::format("{} bytes", mine.size())}};
    mine = slim.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  say(fmt::format("railkit validate: {} node(s), backend {}, data interface {}, control interface {}\n", n,
                  config.bench.backend, config.bench.transport_options.data_interface,
                  config.bench.control_interface));
  say(progress(1, fmt::format("node: gathering {} report(s)", n)));
  auto gathered = boot.gather(mine);
  if (!gathered) return tl::unexpected(gathered.error().withContext("phase 1 (node)"));
  if (me != 0) return okStatus();
  auto reports = parseReports(*gathered);
  labels = nodeLabels(reports);
  report.setNodes(std::move(reports), labels);
  report.setSeconds("node", secondsSince(phase_start));
  phase_start = std::chrono::steady_clock::now();
  say(progress(1, fmt::format("node: {} of {} node(s) with errors", report.nodesWithErrors(), n)));
  LldpFabricCheck lldp_fabric = checkLldpFabric(report.nodes(), labels, node.expect.hca_spec);
  if (!lldp_fabric.summary.empty()) say(progress(1, lldp_fabric.summary));
  for (const auto& line : lldp_fabric.failures) say("#   " + line + "\n");
  report.setFabric(std::move(lldp_fabric));
  std::vector<Outlier> outliers;
  SubnetPlans plans = compareNodes(report.nodes(), labels, outliers);
  say(progress(2, fmt::format("consistency: {} outlier(s)", outliers.size())));
  for (const auto& line : formatSubnetPlans(plans.rails)) say("#   subnet plan " + line + "\n");
  for (const auto& line : formatOutliers(outliers, n)) say("#   " + line + "\n");
  report.setOutliers(outliers);
  report.setSubnetPlans(std::move(plans.rails));
  report.setSeconds("consistency", secondsSince(phase_start));
  return okStatus();
}

// Phase 3: bench's pairs matrix; rank 0 keeps the document and its
// failures, and returns the slowest link (phase 4's sizing).
Result<std::optional<MeasuredLink>> measureLinks(bench::Transport& t, bench::Bootstrap& boot,
                                                 const ValidateConfig& config, Report& report,
                                                 std::ostream* text, const Say& say) {
  const int n = boot.size();
  if (n < 2) {
    if (boot.rank() == 0) report.note("links: one node, no pairs to measure");
    return std::nullopt;
  }
  auto phase_start = std::chrono::steady_clock::now();
  say(progress(3, fmt::format("links: pairs over {} nodes", n)));
  std::vector<std::string> pair_failures;
  auto pairs = bench::runPairs(t, boot, config.pairs, text, &pair_failures);
  if (!pairs) return tl::unexpected(pairs.error());
  if (boot.rank() != 0) return std::nullopt;
  auto slowest = slowestLink(*pairs);
  report.setPairs(*pairs, pair_failures);
  report.setSeconds("links", secondsSince(phase_start));
  return slowest;
}

// Phase 4's sweep into `bench_config`, agreed by every rank; rank 0 records
// it and says what was cut.
Status sizeCollectives(bench::Bootstrap& boot, const ValidateConfig& config,
                       const std::vector<const bench::Collective*>& ops,
                       const std::optional<MeasuredLink>& slowest, Report& report,
                       const std::vector<std::string>& labels, bench::BenchConfig& bench_config,
                       const Say& say) {
  auto plan = agreePlan(boot, config, ops, slowest);
  if (!plan) return tl::unexpected(plan.error());
  bench_config.sweep.sizes = plan->sizes;
  bench_config.sweep.iters = plan->iters;
  bench_config.sweep.warmup = plan->warmup;
  if (!plan->sizes.empty()) bench_config.max_bytes = plan->sizes.back();
  if (boot.rank() != 0) return okStatus();
  auto sizing = describePlan(config, *plan, slowest, labels);
  report.setSizing(sizing.json);
  if (plan->capped) report.note("phase 4 " + sizing.line);
  say(progress(4, "collectives" + (sizing.line.empty() ? "" : ": " + sizing.line)));
  return okStatus();
}

}  // namespace

Result<ValidateOutcome> runValidate(const ValidateConfig& config, const NodeInput& node, std::ostream& text) {
  std::vector<const bench::Collective*> ops;
  for (const auto& name : config.ops) {
    const bench::Collective* op = bench::findCollective(name);
    if (!op) return makeError(ErrorCode::kUsage, "--ops: unknown collective '" + name + "'");
    ops.push_back(op);
  }
  auto bootstrap = bench::makeBootstrap(config.bench);
  if (!bootstrap) return tl::unexpected(bootstrap.error());
  bench::Bootstrap& boot = **bootstrap;
  const int n = boot.size();
  ValidateOutcome outcome;
  outcome.is_root = boot.rank() == 0;
  bool speak = outcome.is_root && config.print_text;
  Say say = [&](const std::string& line) {
    if (speak) text << line << std::flush;
  };

  Report report(config, n);
  auto conclude = [&]() -> Result<ValidateOutcome> {
    if (outcome.is_root) {
      outcome.document = report.document();
      outcome.verdict = report.verdict();
      outcome.failures = report.failures();
    }
    return outcome;
  };
  std::vector<std::string> labels;
  if (auto s = checkNodes(config, node, boot, report, labels, say); !s) return tl::unexpected(s.error());

  // --fail-fast: rank 0 decides for everyone.
  if (config.fail_fast) {
    auto decision = boot.allgather(outcome.is_root ? (report.failed() ? "stop" : "go") : "");
    if (!decision) return tl::unexpected(decision.error().withContext("phase 2 (consistency)"));
    if ((*decision)[0] == "stop") {
      if (outcome.is_root) report.skip("links and collectives skipped: --fail-fast after phase 1-2 failures");
      return conclude();
    }
  }

  bench::BenchConfig bench_config = config.bench;
  if (outcome.is_root) discoverLineRate(report.nodes(), labels, bench_config);

  // Phases 3 and 4 need the data plane. Rank 0 keeps what it has when a
  // peer is lost; the others report the loss themselves.
  auto finishIncomplete = [&](int phase, const Error& e) -> Result<ValidateOutcome> {
    if (!outcome.is_root) {
      boot.abort(e.message);
      return tl::unexpected(e);
    }
    report.incomplete(phase, e.message);
    return conclude();
  };
  auto phase_start = std::chrono::steady_clock::now();
  auto transport = bench::makeTransport(bench_config.backend, boot, bench_config.transport_options);
  if (!transport) return finishIncomplete(3, transport.error().withContext("data plane"));
  bench::Transport& t = **transport;
  if (outcome.is_root) {
    report.setPeers(t);
    report.setSeconds("connect", secondsSince(phase_start));
  }

  auto slowest = measureLinks(t, boot, config, report, speak ? &text : nullptr, say);
  if (!slowest) return finishIncomplete(3, slowest.error());
  if (auto s = sizeCollectives(boot, config, ops, *slowest, report, labels, bench_config, say); !s)
    return finishIncomplete(3, s.error());
  phase_start = std::chrono::steady_clock::now();
  auto collectives = bench::runCollectives(bench_config, t, boot, ops, speak ? &text : nullptr);
  if (!collectives) return finishIncomplete(4, collectives.error());
  if (outcome.is_root) {
    report.setCollectives(*collectives, bench_config);
    report.setSeconds("collectives", secondsSince(phase_start));
  }
  if (auto s = boot.barrier(); !s) return finishIncomplete(4, s.error());
  return conclude();
}

}  // namespace railkit::validate
