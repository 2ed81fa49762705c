// Fuzzes the PCI config space / ACS capability walk (binary input; inputs
// shorter than 4096 bytes are padded so the walk itself gets exercised).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sys/pci_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)railkit::sys::parsePciConfigAcs({data, size});
  std::vector<uint8_t> padded(data, data + size);
  if (padded.size() < railkit::sys::kPciConfigFullSize) padded.resize(railkit::sys::kPciConfigFullSize, 0);
  (void)railkit::sys::parsePciConfigAcs(padded);
  return 0;
}
