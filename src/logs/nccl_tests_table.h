#pragma once
// An nccl-tests results table: the rows an `all_reduce_perf`-style binary
// prints after its `# nThread ... minBytes ...` header, and the summary lines
// under it. Both layouts are read: the newer one with `redop` and `root`
// columns and `#wrong`, and the older one without them and with an `error`
// column (whose wrong count is therefore unknown). Parsing is a pure function
// of the lines fed in, one at a time (the streaming reader drives it), so it
// can be unit-tested and fuzzed; lines that are not part of a table are
// rejected on their first character.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace railkit::logs {

struct NcclTestsRow {
  double size_bytes = 0;
  double count = 0;
  std::string type;
  std::string redop;  // empty in the old layout
  std::optional<long> root;
  double oop_time_us = 0, oop_algbw_gbs = 0, oop_busbw_gbs = 0;
  double ip_time_us = 0, ip_algbw_gbs = 0, ip_busbw_gbs = 0;
  std::optional<long> oop_wrong, ip_wrong;  // "N/A" reads as 0; absent in old layout
  uint64_t line = 0;                        // 1-based line in the input
};

// Rows kept per table: a run prints a few dozen; a log of thousands of runs
// must not hold (and print as JSON) every one.
inline constexpr size_t kMaxTableRows = 10000;

struct NcclTestsTable {
  std::vector<NcclTestsRow> rows;            // the first kMaxTableRows
  uint64_t rows_not_kept = 0;                // result rows past them
  std::optional<double> peak_busbw_gbs;      // over both halves of every row
  std::optional<double> largest_busbw_gbs;   // busbw at the largest size
  std::optional<double> avg_busbw_gbs;       // "# Avg bus bandwidth" as printed
  std::optional<long> wrong_total;           // null for the old layout
  std::optional<std::string> out_of_bounds;  // "# Out of bounds values" line
  bool old_layout = false;
  // Header facts, where the output shows them.
  bool header_seen = false;  // "# nThread ... minBytes ..." or the column header
  std::optional<long> nthread, ngpus, iters;
  std::optional<double> min_bytes, max_bytes;
  std::vector<long> ranks;         // "#  Rank  N Group G Pid P on HOST device D" lines
  std::vector<std::string> hosts;  // distinct hosts of those lines, first-seen order
  std::string op;                  // "all_reduce" when a `*_perf` command line shows it
  uint64_t op_line = 0;
};

class NcclTestsTableParser {
 public:
  void feedLine(std::string_view line, uint64_t line_number);
  // The same with `stripped` = stripLinePrefix(line), computed once by a
  // caller that feeds several parsers.
  void feedLine(std::string_view line, std::string_view stripped, uint64_t line_number);
  // Whether feedLine would do nothing with a line whose prefix-stripped
  // text `stripped` starts with an ASCII letter: most lines of a big NCCL
  // log start with a host name, and the caller asks this inline instead
  // of making the call. feedLine reads such a line only through the same
  // two tests, so the two cannot disagree.
  bool skipsLine(std::string_view stripped, uint64_t line_number) const {
    return !inCommandZone(line_number) && !isBareTableText(stripped);
  }
  // A command line naming the test is looked for in this many first lines.
  static constexpr uint64_t kCommandLines = 2000;

  // The table so far, with the summary values (peak, largest, wrong total) computed.
  NcclTestsTable result() const;
  // True when a header or at least one row was seen.
  bool recognised() const { return table_.header_seen || !table_.rows.empty(); }
  bool hasRows() const { return !table_.rows.empty(); }

 private:
  // Near the top and before any table: where a `*_perf` command line is looked for.
  bool inCommandZone(uint64_t line_number) const {
    return table_.op.empty() && line_number <= kCommandLines && table_.rows.empty();
  }
  // A header whose '#' was lost, or a summary line of a table pasted
  // without its '#' column; `text` starts at its first non-blank.
  static bool isBareTableText(std::string_view text) {
    switch (text.empty() ? '\0' : text[0]) {
      case 'n': return text.substr(0, 8) == "nThread ";
      case 'O': return text.substr(0, 20) == "Out of bounds values";
      case 'A': return text.substr(0, 17) == "Avg bus bandwidth";
      default: return false;
    }
  }
  void parseComment(std::string_view rest, uint64_t line_number);
  NcclTestsTable table_;
  // table_.hosts as a set: a job of 100k ranks prints one rank line each, and
  // a linear search per line would make that quadratic.
  std::unordered_set<std::string> host_set_;
  long wrong_ = 0;
};

// Reads every table row and summary line in `text`; lines that are not part of
// a table are ignored, so an NCCL log with a table inside it parses too.
NcclTestsTable parseNcclTestsTable(std::string_view text);

}  // namespace railkit::logs
