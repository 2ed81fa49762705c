#include "validate/run.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <set>

#include "bench/transport.h"
#include "validate/consistency.h"
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

std::vector<Outlier> compareNodes(const std::vector<nlohmann::json>& reports,
                                  const std::vector<std::string>& labels) {
  std::vector<NodeAttributes> nodes;
  for (std::size_t i = 0; i < reports.size(); ++i) {
    auto attributes = attributesFromJson(reports[i]["attributes"]);
    // parseNodeReport checked both members; a failed report has none.
    if (attributes) (void)applyAttributeLabels(reports[i]["attribute_labels"], *attributes);
    nodes.push_back({labels[i], attributes ? *attributes : std::vector<NodeAttribute>{}});
  }
  return findOutliers(nodes);
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
  const int me = boot.rank(), n = boot.size();
  ValidateOutcome outcome;
  outcome.is_root = me == 0;
  bool speak = outcome.is_root && config.print_text;
  auto say = [&](const std::string& line) {
    if (speak) text << line << std::flush;
  };

  // Phase 1: this node, then every report to rank 0.
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

  Report report(config, n);
  std::vector<std::string> labels;
  if (outcome.is_root) {
    auto reports = parseReports(*gathered);
    labels = nodeLabels(reports);
    report.setNodes(std::move(reports), labels);
    report.setSeconds("node", secondsSince(phase_start));
    phase_start = std::chrono::steady_clock::now();
    say(progress(1, fmt::format("node: {} of {} node(s) with errors", report.nodesWithErrors(), n)));
    auto outliers = compareNodes(report.nodes(), labels);
    say(progress(2, fmt::format("consistency: {} outlier(s)", outliers.size())));
    for (const auto& line : formatOutliers(outliers, n)) say("#   " + line + "\n");
    report.setOutliers(outliers);
    report.setSeconds("consistency", secondsSince(phase_start));
  }

  // --fail-fast: rank 0 decides for everyone.
  if (config.fail_fast) {
    auto decision = boot.allgather(outcome.is_root ? (report.failed() ? "stop" : "go") : "");
    if (!decision) return tl::unexpected(decision.error().withContext("phase 2 (consistency)"));
    if ((*decision)[0] == "stop") {
      if (outcome.is_root) {
        report.skip("links and collectives skipped: --fail-fast after phase 1-2 failures");
        outcome.document = report.document();
        outcome.verdict = report.verdict();
        outcome.failures = report.failures();
      }
      return outcome;
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
    outcome.document = report.document();
    outcome.verdict = report.verdict();
    outcome.failures = report.failures();
    return outcome;
  };
  phase_start = std::chrono::steady_clock::now();
  auto transport = bench::makeTransport(bench_config.backend, boot, bench_config.transport_options);
  if (!transport) return finishIncomplete(3, transport.error().withContext("data plane"));
  bench::Transport& t = **transport;
  if (outcome.is_root) {
    report.setPeers(t);
    report.setSeconds("connect", secondsSince(phase_start));
  }
  phase_start = std::chrono::steady_clock::now();

  if (n >= 2) {
    say(progress(3, fmt::format("links: pairs over {} nodes", n)));
    std::vector<std::string> pair_failures;
    auto pairs = bench::runPairs(t, boot, config.pairs, speak ? &text : nullptr, &pair_failures);
    if (!pairs) return finishIncomplete(3, pairs.error());
    if (outcome.is_root) {
      report.setPairs(*pairs, pair_failures);
      report.setSeconds("links", secondsSince(phase_start));
    }
  } else if (outcome.is_root) {
    report.note("links: one node, no pairs to measure");
  }

  say(progress(4, "collectives"));
  phase_start = std::chrono::steady_clock::now();
  auto collectives = bench::runCollectives(bench_config, t, boot, ops, speak ? &text : nullptr);
  if (!collectives) return finishIncomplete(4, collectives.error());
  if (outcome.is_root) {
    report.setCollectives(*collectives, bench_config);
    report.setSeconds("collectives", secondsSince(phase_start));
  }
  if (auto s = boot.barrier(); !s) return finishIncomplete(4, s.error());
  if (outcome.is_root) {
    outcome.document = report.document();
    outcome.verdict = report.verdict();
    outcome.failures = report.failures();
  }
  return outcome;
}

}  // namespace railkit::validate
