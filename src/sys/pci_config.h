#pragma once
// PCI configuration space: the ACS (Access Control Services) extended
// capability of a bridge. ACS request redirect / source validation on a
// switch port forces GPU<->NIC peer traffic up to the root complex, which
// breaks or slows GPUDirect RDMA. Extended capabilities exist only beyond
// byte 256, and unprivileged readers of sysfs `config` get 64 or 256 bytes,
// so a short config means "unknown", never "off".

#include <cstddef>
#include <cstdint>
#include <span>

namespace railkit::sys {

inline constexpr size_t kPciConfigFullSize = 4096;
inline constexpr uint16_t kAcsCapabilityId = 0x000d;

struct AcsInfo {
  bool known = false;    // config was long enough to walk the extended caps
  bool capable = false;  // ACS capability found
  uint16_t offset = 0;
  uint16_t control = 0;
  bool source_validation() const { return control & 0x1; }
  bool request_redirect() const { return control & 0x4; }
};

// Walks the extended capability list from 0x100 (bounded, loop-safe).
AcsInfo parsePciConfigAcs(std::span<const uint8_t> config);

}  // namespace railkit::sys
