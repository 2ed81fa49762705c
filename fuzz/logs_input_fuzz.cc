// The whole per-input pipeline (reader, recognisers, perftest and table
// parsers, NCCL analysis, JSON) on arbitrary bytes: no crash, no hang, a kind
// always set, and the JSON always serialisable.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <nlohmann/json.hpp>

#include "logs/input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  railkit::logs::LineReaderOptions options;
  options.block_bytes = 1 + data[0] % 97;  // lines across many block boundaries
  options.max_line_bytes = 4096;
  std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  auto report = railkit::logs::analyzeText("fuzz", text, options);
  auto json = railkit::logs::inputToJson(report);
  (void)json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (report.stats.bytes != text.size() && !report.stats.binary) __builtin_trap();
  return 0;
}
