#pragma once
// The size sweep of nccl-tests: -b min, -e max, -f factor or -i step bytes,
// sizes written with K/M/G suffixes (powers of 1024, as nccl-tests reads them).

#include <cstdint>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace railkit::bench {

// "8", "128K", "1M", "8G" (case-insensitive, optional trailing 'B').
Result<std::uint64_t> parseSize(std::string_view text);

// min, min*factor, ... <= max (factor > 1), or min, min+step, ... when step > 0.
std::vector<std::uint64_t> sweepSizes(std::uint64_t min_bytes, std::uint64_t max_bytes, std::uint64_t factor,
                                      std::uint64_t step);

}  // namespace railkit::bench
