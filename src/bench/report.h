#pragma once
// The nccl-tests text layout, byte for byte where parsers look: the
// "# nThread ..." header, the "#  Rank  N Group ..." device lines, the
// three-line column header, one row per size (printed as soon as it is
// measured) and the "# Out of bounds values" / "# Avg bus bandwidth" footer.
// Anything that reads all_reduce_perf output reads ours.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace railkit::bench {

struct HeaderInfo {
  std::uint64_t min_bytes = 0, max_bytes = 0, factor = 2, step = 0;
  int warmup = 5, iters = 20, check = 1;
};

struct RankLine {
  int rank = 0;
  long pid = 0;
  std::string host;
  std::string description;  // e.g. "tcp net1 10.0.0.2"
};

struct Measurement {
  double time_us = 0;
  double algbw = 0;                    // GB/s
  double busbw = 0;                    // GB/s
  std::optional<std::uint64_t> wrong;  // nullopt when not checked (N/A)
};

struct Row {
  std::uint64_t size = 0;
  std::uint64_t count = 0;
  std::string type, redop;
  int root = -1;
  Measurement out_of_place, in_place;
};

std::string formatHeader(const HeaderInfo& info, const std::vector<RankLine>& ranks);
std::string formatColumnHeader();
std::string formatRow(const Row& row);
std::string formatFooter(std::uint64_t out_of_bounds, double avg_busbw);
// nccl-tests' time column: %7.2f below 100 us, %7.1f below 10 ms, %7.0f above.
std::string formatTime(double us);

}  // namespace railkit::bench
