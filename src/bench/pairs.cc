#include "bench/pairs.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <map>

#include "core/strings.h"

namespace railkit::bench {
namespace {

using SteadyClock = std::chrono::steady_clock;

// Up to this many ranks the text shows every pair of a round and the matrix;
// past it a round is summarised (min / median / max) and only slow links and
// suspect nodes are listed.
constexpr int kMaxMatrixRanks = 32;

std::string roundSummary(int n, const std::string& pairs_text, std::vector<double> gbps) {
  if (n <= kMaxMatrixRanks || gbps.empty()) return pairs_text;
  std::sort(gbps.begin(), gbps.end());
  return fmt::format("  {} pairs, min {:.2f} median {:.2f} max {:.2f}", gbps.size(), gbps.front(),
                     gbps[gbps.size() / 2], gbps.back());
}

std::string addressOnly(const std::string& address) {
  auto colon = address.rfind(':');
  return colon == std::string::npos ? address : address.substr(0, colon);
}

std::string rankLabel(const Transport& t, int r) {
  const PeerInfo& p = t.peer(r);
  return fmt::format("{} {} {}", p.host, p.interface, addressOnly(p.address));
}

// One pair's exchange, seen from this rank; returns microseconds.
Result<double> exchange(Transport& t, int peer, const PairsOptions& o, std::vector<char>& send,
                        std::vector<char>& recv) {
  bool sender = o.bidirectional || t.rank() < peer;
  bool receiver = o.bidirectional || t.rank() > peer;
  auto burst = [&](int iters) -> Status {
    std::vector<RequestId> ids;
    for (int i = 0; i < iters; ++i) {
      if (receiver) {
        auto id = t.postRecv(peer, recv.data(), recv.size());
        if (!id) return tl::unexpected(id.error());
        ids.push_back(*id);
      }
      if (sender) {
        auto id = t.postSend(peer, send.data(), send.size());
        if (!id) return tl::unexpected(id.error());
        ids.push_back(*id);
      }
    }
    return t.waitAll(ids);
  };
  char token = 0, ack = 0;
  if (auto s = burst(o.warmup); !s) return tl::unexpected(s.error());
  // Both ends start together: a one-byte handshake after the warm-up.
  if (auto s = sendRecv(t, peer, &token, 1, peer, &ack, 1); !s) return tl::unexpected(s.error());
  auto start = SteadyClock::now();
  if (auto s = burst(o.iters); !s) return tl::unexpected(s.error());
  // The closing handshake makes the interval cover delivery, not just posting.
  if (auto s = sendRecv(t, peer, &token, 1, peer, &ack, 1); !s) return tl::unexpected(s.error());
  return std::chrono::duration<double, std::micro>(SteadyClock::now() - start).count();
}

}  // namespace

std::vector<PairsRound> roundRobinSchedule(int n) {
  std::vector<PairsRound> rounds;
  if (n < 2) return rounds;
  int m = n % 2 == 0 ? n : n + 1;  // rank m-1 is the bye when n is odd
  for (int r = 0; r < m - 1; ++r) {
    PairsRound round;
    auto add = [&](int a, int b) {
      if (a >= n || b >= n) return;
      round.emplace_back(std::min(a, b), std::max(a, b));
    };
    add(m - 1, r);
    for (int i = 1; i < m / 2; ++i) add((r + i) % (m - 1), (r - i + m - 1) % (m - 1));
    std::sort(round.begin(), round.end());
    rounds.push_back(round);
  }
  return rounds;
}

PairsAnalysis analysePairs(int n, const std::vector<PairLink>& links, double fraction) {
  PairsAnalysis a;
  if (links.empty()) return a;
  std::vector<double> bw;
  for (const auto& l : links) bw.push_back(l.gbps);
  std::sort(bw.begin(), bw.end());
  std::size_t k = bw.size();
  a.median_gbps = k % 2 == 1 ? bw[k / 2] : (bw[k / 2 - 1] + bw[k / 2]) / 2;
  a.threshold_gbps = a.median_gbps * fraction;
  std::map<int, int> slow_per_rank;
  for (const auto& l : links) {
    if (l.gbps < a.threshold_gbps) {
      a.slow.push_back(l);
      ++slow_per_rank[l.a];
      ++slow_per_rank[l.b];
    }
  }
  std::sort(a.slow.begin(), a.slow.end(),
            [](const PairLink& x, const PairLink& y) { return x.gbps < y.gbps; });
  if (n >= 3) {
    for (const auto& [rank, slow] : slow_per_rank) {
      if (2 * slow > n - 1) a.suspects.push_back(SuspectNode{rank, slow, n - 1});
    }
  }
  return a;
}

std::string formatPairsMatrix(int n, const std::vector<std::string>& labels,
                              const std::vector<PairLink>& links) {
  std::vector<std::vector<double>> m(static_cast<std::size_t>(n),
                                     std::vector<double>(static_cast<std::size_t>(n), -1));
  for (const auto& l : links) {
    m[static_cast<std::size_t>(l.a)][static_cast<std::size_t>(l.b)] = l.gbps;
    m[static_cast<std::size_t>(l.b)][static_cast<std::size_t>(l.a)] = l.gbps;
  }
  std::string out = "#  Gb/s  ";
  for (int c = 0; c < n; ++c) out += fmt::format(" {:>8}", fmt::format("r{}", c));
  out += "\n";
  for (int r = 0; r < n; ++r) {
    out += fmt::format("# {:>5}  ", fmt::format("r{}", r));
    for (int c = 0; c < n; ++c) {
      double v = m[static_cast<std::size_t>(r)][static_cast<std::size_t>(c)];
      out += r == c || v < 0 ? fmt::format(" {:>8}", "-") : fmt::format(" {:8.2f}", v);
    }
    out += fmt::format("   {}\n",
                       r < static_cast<int>(labels.size()) ? labels[static_cast<std::size_t>(r)] : "");
  }
  return out;
}

namespace {

// Rank 0's verdict on the measured links: the text (matrix, median, slow
// links, suspect nodes), the failure lines and the document.
nlohmann::json pairsDocument(const Transport& t, const PairsOptions& o, std::size_t bytes,
                             const char* direction, const nlohmann::json& rounds_json,
                             const std::vector<PairLink>& links, std::ostream* text,
                             std::vector<std::string>* failures) {
  const int n = t.size();

  PairsAnalysis an = analysePairs(n, links, o.fraction);
  std::vector<std::string> labels;
  nlohmann::json nodes = nlohmann::json::array();
  for (int r = 0; r < n; ++r) {
    labels.push_back(fmt::format("r{} = {}", r, rankLabel(t, r)));
    const PeerInfo& p = t.peer(r);
    nodes.push_back(
        {{"rank", r}, {"host", p.host}, {"interface", p.interface}, {"address", addressOnly(p.address)}});
  }
  auto slowLine = [&](const PairLink& l) {
    return fmt::format("slow link r{} <-> r{} ({} <-> {}): {:.2f} Gb/s, {:.0f}% of the median {:.2f} Gb/s",
                       l.a, l.b, rankLabel(t, l.a), rankLabel(t, l.b), l.gbps, 100 * l.gbps / an.median_gbps,
                       an.median_gbps);
  };
  std::vector<std::string> verdicts;
  for (const auto& s : an.suspects) {
    verdicts.push_back(
        fmt::format("suspect node r{} ({}): {} of its {} links are below {:.0f}% of the median", s.rank,
                    rankLabel(t, s.rank), s.slow_links, s.links, o.fraction * 100));
  }
  for (const auto& l : an.slow) {
    bool explained = std::any_of(an.suspects.begin(), an.suspects.end(),
                                 [&](const SuspectNode& s) { return s.rank == l.a || s.rank == l.b; });
    verdicts.push_back(slowLine(l) + (explained ? "" : " (suspect cable or port)"));
  }
  if (text) {
    // Past kMaxMatrixRanks a matrix is unreadable text; the JSON has every link.
    if (n <= kMaxMatrixRanks) *text << formatPairsMatrix(n, labels, links);
    *text << fmt::format("# median {:.2f} Gb/s; slow below {:.2f} Gb/s ({:.0f}% of the median): {} link(s)\n",
                         an.median_gbps, an.threshold_gbps, o.fraction * 100, an.slow.size());
    for (const auto& v : verdicts) *text << "# " << v << "\n";
    *text << std::flush;
  }
  if (failures) failures->insert(failures->end(), verdicts.begin(), verdicts.end());
  nlohmann::json links_json = nlohmann::json::array(), slow_json = nlohmann::json::array(),
                 suspects_json = nlohmann::json::array();
  for (const auto& l : links) {
    links_json.push_back({{"a", l.a},
                          {"b", l.b},
                          {"bw_gbps", l.gbps},
                          {"time_us", l.time_us},
                          {"slow", l.gbps < an.threshold_gbps}});
  }
  for (const auto& l : an.slow) slow_json.push_back({{"a", l.a}, {"b", l.b}, {"bw_gbps", l.gbps}});
  for (const auto& s : an.suspects) {
    suspects_json.push_back({{"rank", s.rank},
                             {"host", t.peer(s.rank).host},
                             {"address", addressOnly(t.peer(s.rank).address)},
                             {"slow_links", s.slow_links},
                             {"links", s.links}});
  }
  return nlohmann::json{{"size_bytes", bytes},           {"iterations", o.iters},
                        {"direction", direction},        {"nodes", nodes},
                        {"rounds", rounds_json},         {"links", links_json},
                        {"median_gbps", an.median_gbps}, {"threshold_gbps", an.threshold_gbps},
                        {"slow_links", slow_json},       {"suspect_nodes", suspects_json}};
}

}  // namespace

Result<nlohmann::json> runPairs(Transport& t, Bootstrap& boot, const PairsOptions& o, std::ostream* text,
                                std::vector<std::string>* failures) {
  int n = t.size(), me = t.rank();
  if (n < 2) return makeError(ErrorCode::kUsage, "pairs needs at least 2 ranks (one per node)");
  auto rounds = roundRobinSchedule(n);
  std::vector<char> send(std::max<std::uint64_t>(o.bytes, 1), 1), recv(send.size(), 0);
  const char* direction = o.bidirectional ? "bidirectional" : "one-way";
  if (text) {
    *text << fmt::format(
                 "# railkit pairs: {} ranks, {} rounds of disjoint pairs, {} bytes x {} iterations, {} "
                 "(bandwidth per direction)\n",
                 n, rounds.size(), send.size(), o.iters, direction)
          << std::flush;
  }
  std::vector<PairLink> links;
  nlohmann::json rounds_json = nlohmann::json::array();
  auto peerIn = [&](std::size_t ri) {
    for (auto [a, b] : rounds[ri]) {
      if (a == me) return b;
      if (b == me) return a;
    }
    return -1;
  };
  // Each round's partner is connected ahead, before the barrier that
  // precedes its round, while this rank waits for the others anyway: the
  // streams open on first use (tcp), and a connection set up inside the
  // round would be on every round's critical path.
  auto connectAhead = [&](std::size_t ri) -> Status {
    int next = ri < rounds.size() ? peerIn(ri) : -1;
    if (next < 0) return okStatus();
    if (auto s = t.connect(next); !s)
      return tl::unexpected(s.error().withContext(fmt::format("pairs round {} with rank {}", ri + 1, next)));
    return okStatus();
  };
  if (auto s = connectAhead(0); !s) return tl::unexpected(s.error());
  for (std::size_t ri = 0; ri < rounds.size(); ++ri) {
    int peer = peerIn(ri);
    // Rounds never overlap: a link's figure is its own round's.
    if (auto s = boot.barrier(); !s) return tl::unexpected(s.error());
    double us = 0;
    if (peer >= 0) {
      auto r = exchange(t, peer, o, send, recv);
      if (!r)
        return tl::unexpected(
            r.error().withContext(fmt::format("pairs round {} with rank {}", ri + 1, peer)));
      us = *r;
    }
    if (auto s = connectAhead(ri + 1); !s) return tl::unexpected(s.error());
    // Only rank 0 needs the timings: a gather, not an allgather (at 1024
    // ranks every round would otherwise send 1024 timings to every rank).
    auto all = boot.gather(fmt::format("{:.3f}", us));
    if (!all) return tl::unexpected(all.error());
    if (me != 0) continue;
    nlohmann::json round_json = nlohmann::json::array();
    std::vector<double> round_gbps;
    std::string pairs_text;
    for (auto [a, b] : rounds[ri]) {
      double ta = parseDouble((*all)[static_cast<std::size_t>(a)]).value_or(0);
      double tb = parseDouble((*all)[static_cast<std::size_t>(b)]).value_or(0);
      PairLink l{a, b, 0, std::max(ta, tb)};
      l.gbps = l.time_us > 0 ? static_cast<double>(send.size()) * o.iters * 8 / (l.time_us * 1e3) : 0;
      links.push_back(l);
      round_gbps.push_back(l.gbps);
      pairs_text += fmt::format("  r{}-r{} {:.2f}", a, b, l.gbps);
      round_json.push_back({a, b});
    }
    rounds_json.push_back(round_json);
    if (text)
      *text << fmt::format("# round {}/{}:", ri + 1, rounds.size()) << roundSummary(n, pairs_text, round_gbps)
            << " Gb/s\n"
            << std::flush;
  }
  if (me != 0) return nlohmann::json{};
  return pairsDocument(t, o, send.size(), direction, rounds_json, links, text, failures);
}

}  // namespace railkit::bench
