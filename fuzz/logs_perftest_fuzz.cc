// Feeds arbitrary bytes to the perftest parser: it must never crash, hang or
// read out of bounds, and every row it keeps must come from a real line.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "logs/perftest.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto result = railkit::logs::parsePerftest(text);
  for (const auto& row : result.rows)
    if (row.line == 0) __builtin_trap();
  for (const auto& e : result.errors)
    if (e.wc_status) (void)railkit::logs::wcStatusName(*e.wc_status);
  return 0;
}
