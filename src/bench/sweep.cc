#include "bench/sweep.h"

#include <cctype>
#include <string>

#include "core/strings.h"

namespace railkit::bench {

Result<std::uint64_t> parseSize(std::string_view text) {
  std::string_view s = trim(text);
  if (!s.empty() && (s.back() == 'B' || s.back() == 'b')) s.remove_suffix(1);
  std::uint64_t mult = 1;
  if (!s.empty()) {
    switch (std::tolower(static_cast<unsigned char>(s.back()))) {
      case 'k': mult = 1ull << 10; break;
      case 'm': mult = 1ull << 20; break;
      case 'g': mult = 1ull << 30; break;
      case 't': mult = 1ull << 40; break;
      default: break;
    }
    if (mult != 1) s.remove_suffix(1);
  }
  auto value = parseUint(s);
  if (!value || s.empty() || *value > (~0ull) / mult) {
    return makeError(ErrorCode::kUsage,
                     "expected a size like 8, 128K, 1M or 8G, found '" + std::string(text) + "'");
  }
  return *value * mult;
}

std::vector<std::uint64_t> sweepSizes(std::uint64_t min_bytes, std::uint64_t max_bytes, std::uint64_t factor,
                                      std::uint64_t step) {
  std::vector<std::uint64_t> sizes;
  if (min_bytes > max_bytes) return sizes;
  std::uint64_t s = min_bytes;
  while (s <= max_bytes && sizes.size() < 100000) {
    sizes.push_back(s);
    std::uint64_t next = step > 0 ? s + step : (factor > 1 ? s * factor : max_bytes + 1);
    if (next <= s) break;  // overflow or zero start with a factor
    s = next;
  }
  return sizes;
}

}  // namespace railkit::bench
