#pragma once
// One input of `railkit logs`: a file (or stdin) streamed once through the
// line reader, every line offered to each recogniser. What the input IS comes
// from its content, never its name:
//   nccl-tests  an nccl-tests results table (header or rows) is present;
//   perftest    a perftest title, banner or results table is present;
//   nccl-log    NCCL debug lines (`host:pid:tid [dev] NCCL INFO ...`);
//   unknown     none of these (or binary / empty input), with a note saying so.
// NCCL lines around a table are analysed too: a `nccl-tests` input carries the
// NCCL fields whenever NCCL lines were seen.

#include <memory>
#include <nlohmann/json.hpp>  // nccl_log.h holds a json by value
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/finding.h"
#include "core/result.h"
#include "logs/line_reader.h"
#include "logs/nccl_log.h"
#include "logs/nccl_tests_table.h"
#include "logs/perftest.h"

namespace railkit::logs {

enum class InputKind { kUnknown, kNcclLog, kNcclTests, kPerftest };
const char* inputKindName(InputKind kind);

struct InputReport {
  std::string file;  // as given; "-" is reported as "<stdin>"
  InputKind kind = InputKind::kUnknown;
  ReadStats stats;
  std::vector<std::string> notes;  // empty, binary, cut lines, nothing recognised
  bool nccl_lines = false;
  std::optional<NcclLogFacts> nccl;  // when NCCL lines were seen
  // Kept for the job-wide view (combineJob); its state is small and bounded.
  std::shared_ptr<const NcclLogAnalyzer> nccl_analyzer;
  std::optional<NcclTestsTable> table;     // kind nccl-tests
  std::optional<PerftestResult> perftest;  // kind perftest
  std::vector<Finding> findings;           // this input's findings, `file` set
};

// Streams `path` ("-" = stdin). kNotFound / kIo when it cannot be opened or
// read; binary or empty input is not an error (the report says so).
Result<InputReport> analyzeFile(const std::string& path, const LineReaderOptions& options = {});

// The same over text in memory (tests and fuzzing).
InputReport analyzeText(const std::string& name, std::string_view text,
                        const LineReaderOptions& options = {});

nlohmann::json inputToJson(const InputReport& input);

}  // namespace railkit::logs
