// Fuzzes the hwloc XML reader (pugixml + our tree walk).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "model/hwloc_xml.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto topo =
      railkit::model::parseHwlocXml(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz");
  if (topo) {
    railkit::model::Inventory inv;
    railkit::model::applyHwlocTopology(*topo, inv);
  }
  return 0;
}
