// Feeds arbitrary bytes to the nccl-tests table parser: it must never crash,
// hang or read out of bounds, whatever the input.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "logs/nccl_tests_table.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto table =
      railkit::logs::parseNcclTestsTable(std::string_view(reinterpret_cast<const char*>(data), size));
  if (table.peak_busbw_gbs && table.rows.empty()) __builtin_trap();
  return 0;
}
