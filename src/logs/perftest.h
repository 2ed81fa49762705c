#pragma once
// perftest output (ib_write_bw, ib_read_bw, ib_send_bw, ib_*_lat and
// friends): the header block of `Key : value` settings, the results table and
// the error lines a failing run prints. Bandwidth is converted to Gb/s (10^9
// bit/s) whatever unit the run used: `--report_gbits` prints Gb/sec, otherwise
// perftest prints MB/sec (or MiB/sec in newer releases), both 2^20 bytes/s.
// Latency tables keep their microsecond columns.
//
// The parser is fed one line at a time (it runs inside the streaming reader)
// and is a pure function of the lines it was given.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "logs/nccl_tests_table.h"  // kMaxTableRows

namespace railkit::logs {

struct PerftestRow {
  double bytes = 0;
  std::optional<double> iterations;
  // Bandwidth tests.
  std::optional<double> bw_peak_gbps, bw_avg_gbps, msg_rate_mpps;
  // Latency tests (microseconds).
  std::optional<double> t_min_us, t_max_us, t_typical_us, t_avg_us, t_stdev_us, p99_us, p999_us;
  uint64_t line = 0;
};

// A line that says the run failed, with perftest's work-completion status
// decoded where it printed one.
struct PerftestError {
  std::string text;
  uint64_t line = 0;
  std::optional<int> wc_status;
};

struct PerftestResult {
  std::string test;  // title as printed: "RDMA_Write BW Test"
  std::string tool;  // "ib_write_bw" when the command line or banner shows it
  bool latency = false;
  std::string bw_unit;  // the unit as printed: "Gb/sec", "MB/sec", "MiB/sec"
  // Header facts (empty / nullopt when not shown).
  std::string device, link_type, transport_type, connection_type, rdma_cm_qps, data_exchange;
  std::optional<int> qps, mtu_bytes, gid_index, tx_depth;
  std::vector<std::pair<std::string, std::string>> settings;  // every `Key : value`, in order
  std::vector<PerftestRow> rows;                              // the first kMaxTableRows (nccl_tests_table.h)
  uint64_t rows_not_kept = 0;                                 // result rows past them
  // The first kMaxKeptErrors error lines (plus the first one that carries a
  // work-completion status, when it comes later); error_lines counts them all.
  // A run that loops on a failing QP prints millions of them.
  std::vector<PerftestError> errors;
  uint64_t error_lines = 0;
  bool peak_not_measured = false;  // `WARNING: BW peak won't be measured`
  uint64_t title_line = 0;
};

class PerftestParser {
 public:
  static constexpr size_t kMaxKeptErrors = 100;
  void feedLine(std::string_view line, uint64_t line_number);
  // The same with `stripped` = stripLinePrefix(line), computed once by a
  // caller that feeds several parsers.
  void feedLine(std::string_view line, std::string_view stripped, uint64_t line_number);
  // Whether feedLine would do nothing with a line whose prefix-stripped
  // text starts with the ASCII letter `c`, asked inline by a caller that
  // feeds every line of a big log. feedLine's first return is the same test.
  bool skipsLineStartingWith(char c, uint64_t line_number) const {
    return !recognised_ && !inCommandZone(line_number) && !mayStartOutput(c);
  }
  // A command line naming the tool is looked for in this many first lines.
  static constexpr uint64_t kCommandLines = 2000;

  // True once a title, a banner or a results-table header was seen.
  bool recognised() const { return recognised_; }
  const PerftestResult& result() const { return result_; }

 private:
  // Near the top, before a tool was named: where a command line is looked for.
  bool inCommandZone(uint64_t line_number) const {
    return result_.tool.empty() && line_number <= kCommandLines;
  }
  // The first characters of the lines that make a text perftest output
  // (title, banner, `#bytes` header, `Requested` / `WARNING` lines); any
  // line is read once it is.
  static bool mayStartOutput(char c) {
    return c == 'R' || c == 'S' || c == 'A' || c == '#' || c == 'i' || c == 'W';
  }
  void parseSettings(std::string_view line);
  void parseTableHeader(std::string_view line);
  void parseRow(std::string_view line, uint64_t line_number);

  enum class Column {
    kBytes,
    kIterations,
    kBwPeak,
    kBwAvg,
    kMsgRate,
    kTMin,
    kTMax,
    kTTypical,
    kTAvg,
    kTStdev,
    kP99,
    kP999,
    kOther
  };
  PerftestResult result_;
  std::vector<Column> columns_;
  double bw_factor_ = 1.0;  // to Gb/s
  bool recognised_ = false;
  bool kept_status_ = false;  // an error with a wc_status is among `errors`
};

// Convenience for tests and fuzzing: every line of `text`.
PerftestResult parsePerftest(std::string_view text);

// "remote access error" for IBV_WC_REM_ACCESS_ERR (10), and so on.
const char* wcStatusName(int status);

}  // namespace railkit::logs
