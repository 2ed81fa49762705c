#include "sys/pci_config.h"

namespace railkit::sys {

namespace {
uint32_t read32(std::span<const uint8_t> c, size_t off) {
  return c[off] | c[off + 1] << 8 | c[off + 2] << 16 | static_cast<uint32_t>(c[off + 3]) << 24;
}
}  // namespace

AcsInfo parsePciConfigAcs(std::span<const uint8_t> config) {
  AcsInfo info;
  if (config.size() < kPciConfigFullSize) return info;
  info.known = true;
  size_t offset = 0x100;
  // At most (4096-256)/4 capabilities fit; more means a loop.
  for (int guard = 0; guard < 960 && offset >= 0x100 && offset + 8 <= config.size(); ++guard) {
    uint32_t header = read32(config, offset);
    if (header == 0 || header == 0xffffffff) break;
    if ((header & 0xffff) == kAcsCapabilityId) {
      info.capable = true;
      info.offset = static_cast<uint16_t>(offset);
      info.control = static_cast<uint16_t>(config[offset + 6] | config[offset + 7] << 8);
      return info;
    }
    size_t next = (header >> 20) & 0xffc;
    if (next <= offset) break;  // the list only moves forward
    offset = next;
  }
  return info;
}

}  // namespace railkit::sys
