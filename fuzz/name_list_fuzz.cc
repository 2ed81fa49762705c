// Fuzzes the NCCL_SOCKET_IFNAME / NCCL_IB_HCA syntax parser.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/name_list.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  for (bool ports : {false, true}) {
    auto spec = railkit::parseNameList(text, ports);
    (void)railkit::nameListSelects(spec, "eth0", 1);
    (void)railkit::nameListSelects(spec, text.substr(0, 16));
  }
  return 0;
}
