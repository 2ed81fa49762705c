// Fuzzes every sys/ text parser (limits, status, mountinfo, rate, state, GID
// type, link speed, default route, meminfo) on the same input: none may crash or hang.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "sys/parsers.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)railkit::sys::parseRateGbps(text);
  (void)railkit::sys::parseStateName(text);
  (void)railkit::sys::parseGidType(text);
  (void)railkit::sys::isZeroGid(text);
  (void)railkit::sys::parseLimitsMemlock(text);
  (void)railkit::sys::parseStatusCapEff(text);
  (void)railkit::sys::parseMountinfoShmBytes(text);
  (void)railkit::sys::mountinfoHasShm(text);
  (void)railkit::sys::parseLinkSpeedGts(text);
  (void)railkit::sys::parseDefaultRouteInterface(text);
  (void)railkit::sys::parseMeminfoTotalBytes(text);
  if (auto code = railkit::sys::parseStateCode(text)) (void)railkit::sys::physStateNameOfCode(*code);
  return 0;
}
