#include "logs/input.h"

#include <fcntl.h>
#include <fmt/core.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

#include "core/input_file.h"
#include "logs/line_prefix.h"
#include "logs/output_findings.h"

namespace railkit::logs {
namespace {

// Every line goes to each recogniser; each rejects foreign lines on their
// first bytes, so the cost per line stays a few compares plus the NCCL
// analyser's own scan. With a reader thread, what depends on the lines alone
// runs there, right after a line is cut: the NCCL scan's stateless half
// (classifying the line, locating its header) and the table recognisers,
// which keep state of their own that nothing on the caller's thread reads
// before the end. The caller's thread runs the rest of the NCCL analysis.
// The split keeps both cores about equally busy (the per-rank view on the
// reader thread made that one the slower); where the input makes the
// reader's half the heavier, the caller's thread classifies what the reader
// defers to it while it would otherwise wait.
class InputAnalyzer : public StagedLineSink {
 public:
  explicit InputAnalyzer(std::string file) : file_(std::move(file)) {}

  void line(std::string_view text, uint64_t line_number, bool) override {
    nccl_.feedLine(text, line_number);
    feedTables(text, line_number);
  }

  // A line as the caller's thread gets it: 48 bytes, the text's place and
  // what prepareLine found in it.
  struct alignas(kCacheLineBlock) NcclBatch : Batch {
    struct Item {
      const char* text;
      uint32_t size;
      NcclLogAnalyzer::PreparedLine prepared;
    };
    std::vector<Item> items;
    void clear() override { items.clear(); }
  };
  std::unique_ptr<Batch> newBatch() override { return std::make_unique<NcclBatch>(); }
  // The reader has already removed ANSI codes (LineSink's contract). Lines
  // are at most the line cap (64 KiB by default): their size fits 32 bits.
  void prepare(Batch& batch, std::string_view text, uint64_t line_number, bool) override {
    static_cast<NcclBatch&>(batch).items.push_back(NcclBatch::Item{
        text.data(), static_cast<uint32_t>(text.size()), NcclLogAnalyzer::prepareLine(text, &header_memo_)});
    feedTables(text, line_number);
  }
  // The caller's thread classifies it (feedPrepared's path for kUnprepared).
  void defer(Batch& batch, std::string_view text, uint64_t line_number, bool) override {
    NcclLogAnalyzer::PreparedLine unprepared;
    unprepared.level = NcclLogAnalyzer::PreparedLine::kUnprepared;
    static_cast<NcclBatch&>(batch).items.push_back(
        NcclBatch::Item{text.data(), static_cast<uint32_t>(text.size()), unprepared});
    feedTables(text, line_number);
  }
  void consume(Batch& batch, uint64_t line_number) override {
    const auto& items = static_cast<NcclBatch&>(batch).items;
    for (size_t i = 0; i < items.size(); ++i) {
      if (i + 6 < items.size()) {
        const auto& ahead = items[i + 6];
        __builtin_prefetch(ahead.text + ahead.prepared.body_at);
        __builtin_prefetch(ahead.text + ahead.prepared.text_len);
      }
      const auto& item = items[i];
      nccl_.feedPrepared(std::string_view(item.text, item.size), item.prepared, line_number++);
    }
  }

  InputReport finish(const ReadStats& stats) {
    InputReport report;
    report.file = file_;
    report.stats = stats;
    if (stats.binary) {
      report.notes.push_back(binaryNote(stats));
      return report;
    }
    if (stats.bytes == 0) {
      report.notes.push_back("empty input: nothing to analyse");
      return report;
    }
    if (stats.truncated_lines > 0)
      report.notes.push_back(
          fmt::format("{} line(s) longer than the {} KiB line cap were cut (first: line {}, longest {} "
                      "bytes); only their "
                      "head was analysed",
                      stats.truncated_lines, LineReaderOptions{}.max_line_bytes >> 10,
                      stats.first_truncated_line, stats.longest_line_bytes));
    report.nccl_lines = nccl_.sawNccl();
    if (report.nccl_lines) {
      report.nccl = nccl_.facts();
      for (auto& f : nccl_.findings(*report.nccl)) report.findings.push_back(std::move(f));
      report.nccl_analyzer = std::make_shared<const NcclLogAnalyzer>(std::move(nccl_));
    } else {
      // No NCCL line: only the findings any program's output shows (a
      // process that crashed in an MPI job's log).
      for (auto& f : nccl_.findings()) report.findings.push_back(std::move(f));
    }
    // nccl-tests when a results table is present; a header alone (a run that
    // stopped early) only makes the kind when there are no NCCL lines either.
    bool rows = table_.hasRows();
    if (rows || (table_.recognised() && !report.nccl_lines && !perftest_.recognised())) {
      report.kind = InputKind::kNcclTests;
      report.table = table_.result();
      for (auto& f : tableFindings(*report.table, file_)) report.findings.push_back(std::move(f));
      if (!rows) report.notes.push_back("nccl-tests header without result rows (the run stopped early?)");
      if (report.table->rows_not_kept > 0)
        report.notes.push_back(rowsNotKeptNote(report.table->rows_not_kept));
    } else if (perftest_.recognised()) {
      report.kind = InputKind::kPerftest;
      report.perftest = perftest_.result();
      for (auto& f : perftestFindings(*report.perftest, file_)) report.findings.push_back(std::move(f));
      if (report.perftest->rows.empty()) report.notes.push_back("perftest output without result rows");
      if (report.perftest->rows_not_kept > 0)
        report.notes.push_back(rowsNotKeptNote(report.perftest->rows_not_kept));
    } else if (report.nccl_lines) {
      report.kind = InputKind::kNcclLog;
      if (table_.recognised())
        report.notes.push_back(
            "nccl-tests header without result rows: the test stopped before its first result");
    } else {
      report.notes.push_back(fmt::format(
          "no NCCL debug lines, nccl-tests table or perftest output in {} line(s); run the job with "
          "NCCL_DEBUG=INFO to get NCCL lines",
          stats.lines));
    }
    for (auto& f : report.findings)
      if (f.file.empty()) f.file = file_;
    return report;
  }

 private:
  // nccl-tests and perftest tables, both read past kubectl/Slurm prefixes.
  void feedTables(std::string_view text, uint64_t line_number) {
    std::string_view stripped = stripLinePrefix(text);
    // Most lines of a big NCCL log start with a host name, which both
    // recognisers turn away at once: asking them inline instead of making
    // their calls saved a twentieth of the reader thread's time.
    if (!stripped.empty() && (stripped[0] | 0x20) >= 'a' && (stripped[0] | 0x20) <= 'z' &&
        table_.skipsLine(stripped, line_number) && perftest_.skipsLineStartingWith(stripped[0], line_number))
      return;
    table_.feedLine(text, stripped, line_number);
    perftest_.feedLine(text, stripped, line_number);
  }

  static std::string rowsNotKeptNote(uint64_t count) {
    return fmt::format(
        "{} result row(s) past the first {} were not kept; the table values come from the kept rows", count,
        kMaxTableRows);
  }

  static std::string binaryNote(const ReadStats& stats) {
    return fmt::format("binary data (control byte at offset {}), not a text log: not analysed",
                       stats.binary_offset);
  }

  // What each thread writes line after line sits on cache lines of its own:
  // a line the other core reads as it is written moves between the cores
  // every time (the caller's read of nccl_ beside the reader's header memo
  // cost a tenth of all the time).
  std::string file_;
  alignas(kCacheLineBlock) NcclLogAnalyzer nccl_{file_};
  // The reader thread's (prepare()), read by the caller's only after the end.
  alignas(kCacheLineBlock) nccl::HeaderMemo header_memo_;
  NcclTestsTableParser table_;
  PerftestParser perftest_;
  alignas(kCacheLineBlock) char end_[1] = {};  // nothing after perftest_ shares its line
};

}  // namespace

const char* inputKindName(InputKind kind) {
  switch (kind) {
    case InputKind::kUnknown: return "unknown";
    case InputKind::kNcclLog: return "nccl-log";
    case InputKind::kNcclTests: return "nccl-tests";
    case InputKind::kPerftest: return "perftest";
  }
  return "unknown";
}

Result<InputReport> analyzeFile(const std::string& path, const LineReaderOptions& options) {
  bool is_stdin = path == "-";
  std::string name = is_stdin ? "<stdin>" : path;
  // A name must be a regular file: a FIFO or /dev/zero given by name would
  // block or never end. A pipe is read as cat reads it, through "-".
  int fd = STDIN_FILENO;
  if (!is_stdin) {
    auto opened = openInputFile(path, {"", SIZE_MAX, true});
    if (!opened) return tl::unexpected(opened.error());
    fd = *opened;
  }
#ifdef POSIX_FADV_SEQUENTIAL
  if (!is_stdin) (void)::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
  InputAnalyzer analyzer(name);
  auto stats = readLines(fd, name, analyzer, options);
  if (!is_stdin) ::close(fd);
  if (!stats) return tl::unexpected(stats.error());
  return analyzer.finish(*stats);
}

InputReport analyzeText(const std::string& name, std::string_view text, const LineReaderOptions& options) {
  InputAnalyzer analyzer(name);
  auto stats = readLinesFromText(text, analyzer, options);
  return analyzer.finish(stats);
}

}  // namespace railkit::logs
