#include "bench/report.h"

#include <fmt/format.h>

namespace railkit::bench {

std::string formatTime(double us) {
  if (us >= 10000.0) return fmt::format("{:7.0f}", us);
  if (us >= 100.0) return fmt::format("{:7.1f}", us);
  return fmt::format("{:7.2f}", us);
}

std::string formatHeader(const HeaderInfo& h, const std::vector<RankLine>& ranks) {
  std::string step = h.step > 0 ? fmt::format("{}(bytes)", h.step) : fmt::format("{}(factor)", h.factor);
  std::string out = fmt::format(
      "# nThread 1 nGpus 1 minBytes {} maxBytes {} step: {} warmup iters: {} iters: {} agg iters: 1 "
      "validation: {} "
      "graph: 0\n#\n# Using devices\n",
      h.min_bytes, h.max_bytes, step, h.warmup, h.iters, h.check);
  for (const auto& r : ranks) {
    out += fmt::format("#  Rank {:2d} Group  0 Pid {:6d} on {:>10} device  0 [cpu] {}\n", r.rank, r.pid,
                       r.host, r.description);
  }
  return out + "#\n";
}

std::string formatColumnHeader() {
  return "#                                                              out-of-place                       "
         "in-place"
         "          \n"
         "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   "
         "algbw   "
         "busbw #wrong\n"
         "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  "
         "(GB/s)  "
         "(GB/s)       \n";
}

namespace {
std::string formatMeasurement(const Measurement& m) {
  std::string wrong = m.wrong ? fmt::format("{:5d}", *m.wrong) : std::string("  N/A");
  return fmt::format("  {}  {:6.2f}  {:6.2f}  {}", formatTime(m.time_us), m.algbw, m.busbw, wrong);
}
}  // namespace

std::string formatRow(const Row& row) {
  return fmt::format("{:12d}  {:12d}  {:>8}  {:>6}  {:6d}", row.size, row.count, row.type, row.redop,
                     row.root) +
         formatMeasurement(row.out_of_place) + formatMeasurement(row.in_place) + "\n";
}

std::string formatFooter(std::uint64_t out_of_bounds, double avg_busbw) {
  return fmt::format("# Out of bounds values : {} {}\n# Avg bus bandwidth    : {:g} \n#\n", out_of_bounds,
                     out_of_bounds == 0 ? "OK" : "FAILED", avg_busbw);
}

}  // namespace railkit::bench
