// Fuzzes the exporter's sysfs text parsers (a counter file's number, the
// number of a port's state or phys_state) on any bytes a --root tree could
// hold, and checks what the exporter relies on: a counter is only ever read
// from plain decimal digits (so "12a" or "-1" can never become a value), and
// a state number is the counter value of the text before its first colon.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "exporter/counters.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace ex = railkit::exporter;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  if (auto value = ex::parseCounterValue(text)) {
    bool digit = false;
    for (char c : text) {
      if (c >= '0' && c <= '9')
        digit = true;
      else if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\v' && c != '\f')
        __builtin_trap();
    }
    if (!digit) __builtin_trap();
  }
  auto state = ex::parseStateNumber(text);
  auto colon = text.find(':');
  if (colon == std::string_view::npos) {
    if (state) __builtin_trap();
  } else if (state != ex::parseCounterValue(text.substr(0, colon))) {
    __builtin_trap();
  }
  return 0;
}
