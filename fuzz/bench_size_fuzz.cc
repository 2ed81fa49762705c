// Fuzzes the -b/-e size parser and the sweep built from it.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "bench/sweep.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto a = railkit::bench::parseSize(text);
  auto b = railkit::bench::parseSize(text.substr(size / 2));
  if (a && b) (void)railkit::bench::sweepSizes(*a % 4096, *b, 2 + (*a % 7), 0);
  return 0;
}
