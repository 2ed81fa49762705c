// Fuzzes the rendezvous hello parser: whatever a stranger sends to rank 0's
// port must be rejected or parsed, never crash; valid parses round-trip.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "bench/rendezvous.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto hello = railkit::bench::parseRendezvousHello(text);
  if (hello) {
    auto again = railkit::bench::parseRendezvousHello(railkit::bench::formatRendezvousHello(*hello));
    if (!again || again->blob != hello->blob || again->rank != hello->rank) std::abort();
  }
  (void)railkit::bench::hexDecode(text);
  return 0;
}
