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

}  // namespace

Result<CollectivesOutcome> runCollectives(const BenchConfig& c, Transport& t, Bootstrap& boot,
                                          const std::vector<const Collective*>& ops, std::ostream* text) {
  CollectivesOutcome out;
  bool speak = text != nullptr;
  std::vector<RankLine> lines;
  std::set<std::string> hosts;
  nlohmann::json ranks = nlohmann::json::array();
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
    lines.push_back(RankLine{r, pid, p.host, fmt::format("{} {} {}", t.name(), p.interface, p.address)});
    ranks.push_back(
        {{"rank", r}, {"pid", pid}, {"host", p.host}, {"interface", p.interface}, {"address", p.address}});
  }
  int nodes = c.nodes > 0 ? c.nodes : static_cast<int>(hosts.size());
  HeaderInfo header{c.min_bytes,   c.max_bytes,          c.factor, c.step, c.sweep.warmup,
                    c.sweep.iters, c.sweep.check ? 1 : 0};
  if (speak) *text << formatHeader(header, lines) << std::flush;

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
    double last_busbw = sweep->rows.empty() ? 0 : sweep->rows.back().in_place.busbw;
    nlohmann::json entry{
        {"op", coll->name}, {"rows", rows}, {"wrong", sweep->wrong}, {"avg_busbw_gbs", sweep->avg_busbw}};
    std::optional<double> expected = c.expect_busbw;
    if (c.expect_line_rate) {
      std::optional<double> line;
      if (c.nic_gbps)
        line = expectedBusbwFromLineRate(coll->op, t.size(), nodes, *c.nic_gbps, *c.expect_line_rate);
      if (!c.nic_gbps) {
        out.failures.push_back(fmt::format("{}: --expect-line-rate cannot be graded: {}; pass --nic-gbps",
                                           coll->name, c.nic_rate_source));
      } else if (!line) {
        out.failures.push_back(
            fmt::format("{}: --expect-line-rate cannot be graded: all {} ranks are on one node, "
                        "so no NIC is on the path",
                        coll->name, t.size()));
      } else {
        // The bound itself, so a report draws it right even when
        // --expect-busbw is the stricter of the two expectations.
        entry["nic_bound_busbw_gbs"] = *line / *c.expect_line_rate;
        if (!expected || *line > *expected) expected = line;
      }
    }
    if (expected) {
      entry["expected_busbw_gbs"] = *expected;
      if (last_busbw < *expected) {
        out.failures.push_back(
            fmt::format("{}: busbw {:.2f} GB/s at {} bytes is below the expected {:.2f} GB/s", coll->name,
                        last_busbw, sweep->rows.back().size, *expected));
      }
    }
    results.push_back(entry);
  }
  if (out.wrong > 0) {
    out.failures.push_back(
        fmt::format("{} wrong element(s): the data plane corrupted or misrouted data", out.wrong));
  }
  out.nodes = nodes;
  out.devices = std::move(ranks);
  out.results = std::move(results);
  return out;
}

Result<BenchOutcome> runBench(const BenchConfig& c, std::ostream& text) {
  std::vector<const Collective*> ops;
  if (c.op == "p2p" || c.op == "pairs") {
    // handled below, once the transport exists
  } else if (c.op == "all") {
    for (const auto& coll : collectives()) ops.push_back(&coll);
  } else if (const Collective* coll = findCollective(c.op)) {
    ops.push_back(coll);
  } else {
    return makeError(ErrorCode::kUsage, "unknown op '" + c.op + "'");
  }
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
  bool speak = outcome.is_root && c.print_text;
  if (c.op == "p2p") {
    P2pOptions p2p;
    p2p.max_bytes = std::max<std::uint64_t>(2, c.max_bytes);
    p2p.iters = std::max(5, c.sweep.iters * 50);
    p2p.lat_iters = std::max(10, c.sweep.iters * 50);
    auto doc = runP2p(t, p2p, speak ? &text : nullptr);
    if (!doc) return giveUp(doc.error().withContext("p2p"));
    outcome.document = {{"backend", t.name()},
                        {"op", "p2p"},
                        {"data_interface", c.transport_options.data_interface},
                        {"control_interface", c.control_interface},
                        {"p2p", *doc},
                        {"environment", c.environment}};
    return outcome;
  }
  if (c.op == "pairs") {
    PairsOptions pairs;
    pairs.bytes = std::max<std::uint64_t>(1, c.max_bytes);
    pairs.iters = std::max(1, c.sweep.iters);
    pairs.warmup = c.sweep.warmup;
    pairs.bidirectional = !c.pairs_one_way;
    auto doc = runPairs(t, boot, pairs, speak ? &text : nullptr, &outcome.failures);
    if (!doc) return giveUp(doc.error());
    outcome.document = {{"backend", t.name()},
                        {"bootstrap", boot.kind()},
                        {"op", "pairs"},
                        {"ranks", t.size()},
                        {"data_interface", c.transport_options.data_interface},
                        {"control_interface", c.control_interface},
                        {"pairs", *doc},
                        {"failures", outcome.failures},
                        {"environment", c.environment}};
    if (auto s = boot.barrier(); !s) return giveUp(s.error());
    return outcome;
  }
  auto collectives = runCollectives(c, t, boot, ops, speak ? &text : nullptr);
  if (!collectives) return giveUp(collectives.error());
  outcome.wrong = collectives->wrong;
  outcome.failures = collectives->failures;
  int nodes = collectives->nodes;
  nlohmann::json& ranks = collectives->devices;
  nlohmann::json& results = collectives->results;
  outcome.document = {{"backend", t.name()},
                      {"bootstrap", boot.kind()},
                      {"ranks", t.size()},
                      {"nodes", nodes},
                      {"control_interface", c.control_interface},
                      {"data_interface", c.transport_options.data_interface},
                      {"devices", ranks},
                      {"type", dataTypeName(c.sweep.type)},
                      {"redop", reduceOpName(c.sweep.op)},
                      {"iters", c.sweep.iters},
                      {"warmup", c.sweep.warmup},
                      {"results", results},
                      {"wrong", outcome.wrong},
                      {"failures", outcome.failures},
                      {"environment", c.environment}};
  if (c.expect_line_rate) {
    outcome.document["line_rate"] = {
        {"fraction", *c.expect_line_rate}, {"nic_gbps", jsonOpt(c.nic_gbps)}, {"source", c.nic_rate_source}};
  }
  if (auto s = boot.barrier(); !s) return giveUp(s.error());
  return outcome;
}

}  // namespace railkit::bench
