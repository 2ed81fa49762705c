#include "bench/run.h"

#include <fmt/format.h>
#include <unistd.h>

#include <set>

#include "bench/p2p.h"
#include "bench/pairs.h"
#include "core/bandwidth_row.h"
#include "core/json_util.h"
#include "core/strings.h"

namespace railkit::bench {

Result<std::unique_ptr<Bootstrap>> makeBootstrap(const BenchConfig& c) {
  if (c.bootstrap == "mpi") return makeMpiBootstrap(c.bootstrap_options);
  return makeTcpBootstrap(c.bootstrap_options);
}

namespace {

// The row as logs writes an nccl-tests row too (core/bandwidth_row.h).
nlohmann::json rowToJson(const std::string& op, const Row& row) {
  auto half = [](const Measurement& x) {
    BandwidthHalf h{x.time_us, x.algbw, x.busbw, std::nullopt};
    if (x.wrong) h.wrong = static_cast<long>(*x.wrong);
    return h;
  };
  BandwidthRow out{op,
                   row.size,
                   row.count,
                   row.type,
                   row.redop,
                   row.root >= 0 ? std::optional<long>(row.root) : std::nullopt,
                   half(row.out_of_place),
                   half(row.in_place)};
  return out;
}

// Every rank's line of the header and its JSON: rank 0 prints them all.
struct RankTable {
  std::vector<RankLine> lines;
  nlohmann::json devices = nlohmann::json::array();
  int nodes = 0;  // distinct host and data address pairs
};

Result<RankTable> rankTable(Transport& t, Bootstrap& boot) {
  RankTable out;
  std::set<std::string> hosts;
  // Pids travel to rank 0 with the bootstrap so it can print every rank's line.
  auto pids = boot.gather(std::to_string(getpid()));
  if (!pids) return tl::unexpected(pids.error());
  for (int r = 0; r < t.size(); ++r) {
    const PeerInfo& p = t.peer(r);
    // A node is a host and a data address: ranks of one node share both, and
    // network namespaces on one host (tests) share the host name only.
    auto colon = p.address.rfind(':');
    hosts.insert(p.host + " " + (colon == std::string::npos ? p.address : p.address.substr(0, colon)));
    long pid =
        pids->empty() ? 0 : static_cast<long>(parseUint((*pids)[static_cast<std::size_t>(r)]).value_or(0));
    out.lines.push_back(RankLine{r, pid, p.host, fmt::format("{} {} {}", t.name(), p.interface, p.address)});
    out.devices.push_back(
        {{"rank", r}, {"pid", pid}, {"host", p.host}, {"interface", p.interface}, {"address", p.address}});
  }
  out.nodes = static_cast<int>(hosts.size());
  return out;
}

// Grades one collective's busbw at its largest size against --expect-busbw
// and --expect-line-rate (the stricter wins); the bounds go into `entry`.
void gradeCollective(const BenchConfig& c, const Collective& coll, int ranks, int nodes,
                     const SweepResult& sweep, nlohmann::json& entry, std::vector<std::string>& failures) {
  double last_busbw = sweep.rows.empty() ? 0 : sweep.rows.back().in_place.busbw;
  std::optional<double> expected = c.expect_busbw;
  if (c.expect_line_rate) {
    std::optional<double> line;
    if (c.nic_gbps) line = expectedBusbwFromLineRate(coll.op, ranks, nodes, *c.nic_gbps, *c.expect_line_rate);
    if (!c.nic_gbps) {
      failures.push_back(fmt::format("{}: --expect-line-rate cannot be graded: {}; pass --nic-gbps",
                                     coll.name, c.nic_rate_source));
    } else if (!line) {
      failures.push_back(
          fmt::format("{}: --expect-line-rate cannot be graded: all {} ranks are on one node, "
                      "so no NIC is on the path",
                      coll.name, ranks));
    } else {
      // The bound itself, so a report draws it right even when
      // --expect-busbw is the stricter of the two expectations.
      entry["nic_bound_busbw_gbs"] = *line / *c.expect_line_rate;
      if (!expected || *line > *expected) expected = line;
    }
  }
  if (!expected) return;
  entry["expected_busbw_gbs"] = *expected;
  if (last_busbw < *expected) {
    failures.push_back(fmt::format("{}: busbw {:.2f} GB/s at {} bytes is below the expected {:.2f} GB/s",
                                   coll.name, last_busbw, sweep.rows.back().size, *expected));
  }
}

}  // namespace

Result<CollectivesOutcome> runCollectives(const BenchConfig& c, Transport& t, Bootstrap& boot,
                                          const std::vector<const Collective*>& ops, std::ostream* text) {
  CollectivesOutcome out;
  bool speak = text != nullptr;
  auto ranks = rankTable(t, boot);
  if (!ranks) return tl::unexpected(ranks.error());
  int nodes = c.nodes > 0 ? c.nodes : ranks->nodes;
  HeaderInfo header{c.min_bytes,   c.max_bytes,          c.factor, c.step, c.sweep.warmup,
                    c.sweep.iters, c.sweep.check ? 1 : 0};
  if (speak) *text << formatHeader(header, ranks->lines) << std::flush;

  // A backend that is its own collective engine (nccl) runs the ops itself.
  SweepOptions sweep_options = c.sweep;
  if (t.caps().collectives) sweep_options.engine = dynamic_cast<CollectiveEngine*>(&t);
  nlohmann::json results = nlohmann::json::array();
  for (const Collective* coll : ops) {
    if (speak) {
      if (ops.size() > 1) *text << "# Collective test starting: " << coll->name << "\n";
      *text << formatColumnHeader() << std::flush;
    }
    auto sweep = runSweep(*coll, t, boot, sweep_options, [&](const Row& row) {
      if (speak) *text << formatRow(row) << std::flush;
    });
    if (!sweep) return tl::unexpected(sweep.error().withContext(std::string(coll->name)));
    out.wrong += sweep->wrong;
    if (speak) *text << formatFooter(sweep->wrong, sweep->avg_busbw) << std::flush;
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& row : sweep->rows) rows.push_back(rowToJson(coll->name, row));
    nlohmann::json entry{
        {"op", coll->name}, {"rows", rows}, {"wrong", sweep->wrong}, {"avg_busbw_gbs", sweep->avg_busbw}};
    gradeCollective(c, *coll, t.size(), nodes, *sweep, entry, out.failures);
    results.push_back(entry);
  }
  if (out.wrong > 0) {
    out.failures.push_back(
        fmt::format("{} wrong element(s): the data plane corrupted or misrouted data", out.wrong));
  }
  out.nodes = nodes;
  out.devices = std::move(ranks->devices);
  out.results = std::move(results);
  return out;
}

namespace {

// The collectives `op` names: one, every one for "all", none for p2p and pairs.
Result<std::vector<const Collective*>> selectOps(const std::string& op) {
  std::vector<const Collective*> ops;
  if (op == "p2p" || op == "pairs") return ops;
  if (op == "all") {
    for (const auto& coll : collectives()) ops.push_back(&coll);
  } else if (const Collective* coll = findCollective(op)) {
    ops.push_back(coll);
  } else {
    return makeError(ErrorCode::kUsage, "unknown op '" + op + "'");
  }
  return ops;
}

Result<nlohmann::json> p2pDocument(const BenchConfig& c, Transport& t, std::ostream* text) {
  P2pOptions p2p;
  p2p.max_bytes = std::max<std::uint64_t>(2, c.max_bytes);
  p2p.iters = std::max(5, c.sweep.iters * 50);
  p2p.lat_iters = std::max(10, c.sweep.iters * 50);
  auto doc = runP2p(t, p2p, text);
  if (!doc) return tl::unexpected(doc.error().withContext("p2p"));
  return nlohmann::json{{"backend", t.name()},
                        {"op", "p2p"},
                        {"data_interface", c.transport_options.data_interface},
                        {"control_interface", c.control_interface},
                        {"p2p", *doc},
                        {"environment", c.environment}};
}

Result<nlohmann::json> pairsDocument(const BenchConfig& c, Transport& t, Bootstrap& boot, std::ostream* text,
                                     std::vector<std::string>& failures) {
  PairsOptions pairs;
  pairs.bytes = std::max<std::uint64_t>(1, c.max_bytes);
  pairs.iters = std::max(1, c.sweep.iters);
  pairs.warmup = c.sweep.warmup;
  pairs.bidirectional = !c.pairs_one_way;
  auto doc = runPairs(t, boot, pairs, text, &failures);
  if (!doc) return tl::unexpected(doc.error());
  return nlohmann::json{{"backend", t.name()},
                        {"bootstrap", boot.kind()},
                        {"op", "pairs"},
                        {"ranks", t.size()},
                        {"data_interface", c.transport_options.data_interface},
                        {"control_interface", c.control_interface},
                        {"pairs", *doc},
                        {"failures", failures},
                        {"environment", c.environment}};
}

nlohmann::json collectivesDocument(const BenchConfig& c, Transport& t, Bootstrap& boot,
                                   CollectivesOutcome& run, const BenchOutcome& outcome) {
  nlohmann::json doc = {{"backend", t.name()},
                        {"bootstrap", boot.kind()},
                        {"ranks", t.size()},
                        {"nodes", run.nodes},
                        {"control_interface", c.control_interface},
                        {"data_interface", c.transport_options.data_interface},
                        {"devices", std::move(run.devices)},
                        {"type", dataTypeName(c.sweep.type)},
                        {"redop", reduceOpName(c.sweep.op)},
                        {"iters", c.sweep.iters},
                        {"warmup", c.sweep.warmup},
                        {"results", std::move(run.results)},
                        {"wrong", outcome.wrong},
                        {"failures", outcome.failures},
                        {"environment", c.environment}};
  if (c.expect_line_rate) {
    doc["line_rate"] = {
        {"fraction", *c.expect_line_rate}, {"nic_gbps", jsonOpt(c.nic_gbps)}, {"source", c.nic_rate_source}};
  }
  return doc;
}

}  // namespace

Result<BenchOutcome> runBench(const BenchConfig& c, std::ostream& text) {
  auto ops = selectOps(c.op);
  if (!ops) return tl::unexpected(ops.error());
  auto bootstrap = makeBootstrap(c);
  if (!bootstrap) return tl::unexpected(bootstrap.error());
  Bootstrap& boot = **bootstrap;
  // A rank other than 0 that gives up tells rank 0 why (best effort), so rank
  // 0 names the partner this rank lost instead of "left the bootstrap".
  auto giveUp = [&boot](Error e) -> Result<BenchOutcome> {
    if (boot.rank() != 0) boot.abort(e.message);
    return tl::unexpected(std::move(e));
  };
  // The CLI checks -r against the world size it knows; a launcher may still
  // report another size, so every rank checks again before the data plane.
  if (c.sweep.root < 0 || c.sweep.root >= boot.size()) {
    return makeError(ErrorCode::kUsage, "-r/--root: rank " + std::to_string(c.sweep.root) +
                                            " is not in this job of " + std::to_string(boot.size()) +
                                            " rank(s)");
  }
  auto transport = makeTransport(c.backend, boot, c.transport_options);
  if (!transport) return giveUp(transport.error());
  Transport& t = **transport;

  BenchOutcome outcome;
  outcome.is_root = t.rank() == 0;
  std::ostream* speak = outcome.is_root && c.print_text ? &text : nullptr;
  if (c.op == "p2p") {
    auto doc = p2pDocument(c, t, speak);
    if (!doc) return giveUp(doc.error());
    outcome.document = std::move(*doc);
    return outcome;
  }
  if (c.op == "pairs") {
    auto doc = pairsDocument(c, t, boot, speak, outcome.failures);
    if (!doc) return giveUp(doc.error());
    outcome.document = std::move(*doc);
  } else {
    auto run = runCollectives(c, t, boot, *ops, speak);
    if (!run) return giveUp(run.error());
    outcome.wrong = run->wrong;
    outcome.failures = run->failures;
    outcome.document = collectivesDocument(c, t, boot, *run, outcome);
  }
  if (auto s = boot.barrier(); !s) return giveUp(s.error());
  return outcome;
}

}  // namespace railkit::bench
