// Fuzzes the -b/-e size parser and the sweep built from it, and every
// option row's value check (bench/bench_options.h) on the same text: a value
// the check accepts must read back within the row's bounds.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "bench/bench_options.h"
#include "bench/sweep.h"
#include "core/strings.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto a = railkit::bench::parseSize(text);
  auto b = railkit::bench::parseSize(text.substr(size / 2));
  if (a && b) (void)railkit::bench::sweepSizes(*a % 4096, *b, 2 + (*a % 7), 0);
  std::string value(text);
  for (const auto& o : railkit::bench::benchOptions()) {
    if (!railkit::bench::checkOptionText(o, value).empty()) continue;
    if (o.check == railkit::bench::OptionCheck::kWhole) {
      auto n = railkit::parseInt(value);
      if (!n || static_cast<double>(*n) < o.lo || static_cast<double>(*n) > o.hi) __builtin_trap();
    } else if (o.check == railkit::bench::OptionCheck::kSize) {
      auto n = railkit::bench::parseSize(value);
      if (!n || static_cast<double>(*n) > o.hi) __builtin_trap();
    }
  }
  return 0;
}
