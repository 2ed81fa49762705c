#include "bench/harness.h"

#include <algorithm>
#include <chrono>
#include <string>

#include "core/strings.h"

namespace railkit::bench {
namespace {

struct Placement {
  double time_us = 0;
  std::uint64_t wrong = 0;
};

// The same steps on a collective engine (nccl): the engine times the runs on
// its own clock; seeding and checking stay on the host buffers.
Result<Placement> measureOnEngine(CollectiveEngine& e, const Collective& coll, Transport& t,
                                  const SweepOptions& o, const CollectiveArgs& args,
                                  const std::vector<HostBlock>& blocks, const std::function<void()>& reseed) {
  Placement p;
  if (auto s = e.bind(coll.op, args, blocks); !s) return tl::unexpected(s.error());
  if (auto s = e.upload(); !s) return tl::unexpected(s.error());
  if (auto w = e.launch(o.warmup); !w) return tl::unexpected(w.error());
  if (auto s = t.barrier(); !s) return tl::unexpected(s.error());
  auto us = e.launch(o.iters);
  if (!us) return tl::unexpected(us.error());
  p.time_us = *us;
  if (o.check) {
    reseed();
    if (auto s = e.upload(); !s) return tl::unexpected(s.error());
    if (auto r = e.launch(1); !r) return tl::unexpected(r.error());
    if (auto s = e.download(); !s) return tl::unexpected(s.error());
    p.wrong = coll.check(args, t.rank(), t.size(), o.seed);
  }
  return p;
}

// Times one placement on this rank; returns mean microseconds per iteration.
Result<Placement> measure(const Collective& coll, Transport& t, const SweepOptions& o, std::size_t elements,
                          bool in_place) {
  int n = t.size(), rank = t.rank();
  Counts c = coll.counts(elements, n, rank);
  std::size_t esize = dataTypeSize(o.type);
  std::vector<char> a, b;
  CollectiveArgs args{&t, o.type, o.op, o.root, nullptr, nullptr, c.send, c.recv, o.chunk_bytes};
  if (in_place) {
    a.assign(std::max(c.send, c.recv) * esize + esize, 0);
    args.send = a.data() + c.in_place_send * esize;
    args.recv = a.data() + c.in_place_recv * esize;
  } else {
    a.assign(c.send * esize + esize, 0);
    b.assign(c.recv * esize + esize, 0);
    args.send = a.data();
    args.recv = b.data();
  }
  auto fill = [&] { coll.fill(args, rank, n, o.seed); };
  fill();
  if (o.engine != nullptr) {
    std::vector<HostBlock> blocks{{a.data(), a.size()}};
    if (!in_place) blocks.push_back({b.data(), b.size()});
    return measureOnEngine(*o.engine, coll, t, o, args, blocks, [&] {
      fill();
      if (!in_place) std::fill(b.begin(), b.end(), static_cast<char>(0xff));
    });
  }
  for (int i = 0; i < o.warmup; ++i) {
    if (auto s = coll.run(args); !s) return tl::unexpected(s.error());
    if (in_place) fill();
  }
  if (auto s = t.barrier(); !s) return tl::unexpected(s.error());
  Placement p;
  // Timed runs go back to back (in place they consume their input); a
  // fresh, seeded run afterwards is the one that is checked.
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < o.iters; ++i) {
    if (auto s = coll.run(args); !s) return tl::unexpected(s.error());
  }
  auto us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
  p.time_us = o.iters > 0 ? us / o.iters : 0;
  if (o.check) {
    fill();
    // Poison the output so a run that moved nothing cannot pass on stale data.
    if (!in_place) std::fill(b.begin(), b.end(), static_cast<char>(0xff));
    if (auto s = coll.run(args); !s) return tl::unexpected(s.error());
    p.wrong = coll.check(args, rank, n, o.seed);
  }
  return p;
}

Result<std::vector<double>> gatherNumbers(Bootstrap& bootstrap, const std::vector<double>& mine) {
  std::string blob;
  for (double v : mine) blob += std::to_string(v) + " ";
  auto all = bootstrap.allgather(blob);
  if (!all) return tl::unexpected(all.error());
  std::vector<double> flat;
  for (const auto& s : *all) {
    for (auto f : splitWhitespace(s)) flat.push_back(parseDouble(f).value_or(0));
  }
  return flat;
}

double aggregate(const std::vector<double>& times, int how) {
  if (times.empty()) return 0;
  switch (how) {
    case 0: return times[0];
    case 2: return *std::min_element(times.begin(), times.end());
    case 3: return *std::max_element(times.begin(), times.end());
    default: {
      double sum = 0;
      for (double v : times) sum += v;
      return sum / static_cast<double>(times.size());
    }
  }
}

}  // namespace

Result<SweepResult> runSweep(const Collective& coll, Transport& transport, Bootstrap& bootstrap,
                             const SweepOptions& o, const std::function<void(const Row&)>& on_row) {
  SweepResult result;
  int n = transport.size();
  std::size_t esize = dataTypeSize(o.type);
  double bus_sum = 0;
  for (std::uint64_t size : o.sizes) {
    std::size_t elements = size / esize;
    Counts c = coll.counts(elements, n, transport.rank());
    std::uint64_t bytes = std::max(c.send, c.recv) * esize;
    Row row;
    row.size = bytes;
    row.count = bytes / esize;
    row.type = dataTypeName(o.type);
    row.redop = coll.has_redop ? reduceOpName(o.op) : "none";
    row.root = coll.has_root ? o.root : -1;
    std::vector<double> mine;
    for (bool in_place : {false, true}) {
      auto p = measure(coll, transport, o, elements, in_place);
      if (!p) return tl::unexpected(p.error());
      mine.push_back(p->time_us);
      mine.push_back(static_cast<double>(p->wrong));
    }
    auto all = gatherNumbers(bootstrap, mine);
    if (!all) return tl::unexpected(all.error());
    for (int placement = 0; placement < 2; ++placement) {
      std::vector<double> times;
      std::uint64_t wrong = 0;
      for (int r = 0; r < n; ++r) {
        times.push_back((*all)[static_cast<std::size_t>(r * 4 + placement * 2)]);
        wrong += static_cast<std::uint64_t>((*all)[static_cast<std::size_t>(r * 4 + placement * 2 + 1)]);
      }
      Measurement m;
      m.time_us = aggregate(times, o.average);
      m.algbw = m.time_us > 0 ? static_cast<double>(bytes) / 1e3 / m.time_us : 0;
      m.busbw = m.algbw * busFactor(coll.op, n);
      if (o.check) m.wrong = wrong;
      result.wrong += wrong;
      (placement == 0 ? row.out_of_place : row.in_place) = m;
    }
    // nccl-tests averages every measurement it printed, out-of-place and in-place.
    bus_sum += row.out_of_place.busbw + row.in_place.busbw;
    result.rows.push_back(row);
    on_row(row);
  }
  result.avg_busbw = result.rows.empty() ? 0 : bus_sum / (2.0 * static_cast<double>(result.rows.size()));
  return result;
}

}  // namespace railkit::bench
