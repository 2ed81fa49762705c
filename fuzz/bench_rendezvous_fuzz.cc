// Fuzzes the rendezvous parsers: whatever a stranger sends to rank 0's port
// (a hello) or a fake rank 0 sends to a rank (a greeting) must be rejected
// or parsed, never crash; valid parses round-trip, and a parsed hello is
// never accepted under a token it was not made with.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "bench/rendezvous.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto hello = railkit::bench::parseRendezvousHello(text);
  if (hello) {
    auto again = railkit::bench::parseRendezvousHello(railkit::bench::formatRendezvousHello(*hello));
    if (!again || again->blob != hello->blob || again->rank != hello->rank || again->mac != hello->mac)
      std::abort();
    railkit::bench::HelloExpectation expect{hello->job_id, hello->size, "fuzz-job-token-0123456789",
                                            std::string(railkit::bench::kRendezvousNonceBytes, 'n')};
    if (hello->rank != 0 && !railkit::bench::refuseHello(*hello, expect)) std::abort();
  }
  if (auto nonce = railkit::bench::parseRendezvousNonce(text)) {
    if (railkit::bench::formatRendezvousNonce(*nonce) != text) std::abort();
  }
  (void)railkit::bench::hexDecode(text);
  return 0;
}
