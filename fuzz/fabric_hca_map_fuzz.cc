// Feeds arbitrary bytes to the --hca-map parser and, when they parse, uses
// the map on a small fabric: never a crash; a rejected input names its
// source; every entry found again by its own key.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fabric/hca_map.h"
#include "fabric/ibnetdiscover.h"
#include "fabric/report.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto map = railkit::fabric::parseHcaMap(text, "fuzz");
  if (!map) {
    if (map.error().message.rfind("fuzz", 0) != 0) __builtin_trap();
    return 0;
  }
  for (const auto& [key, entry] : map->entries)
    if (map->find(key) != &entry || entry.host.empty() || entry.device.empty()) __builtin_trap();
  static const auto fabric = railkit::fabric::parseIbnetdiscover(
      "Switch\t4 \"S-1\"\t# \"leaf\"\n[1]\t\"H-1\"[1]\n[2]\t\"H-2\"[1]\n\nCa\t1 \"H-1\"\t# \"MT4129\"\n"
      "[1]\t\"S-1\"[1]\n\nCa\t1 \"H-2\"\t# \"n2 mlx5_0\"\n[1]\t\"S-1\"[2]\n",
      "f");
  if (!fabric) __builtin_trap();
  (void)railkit::fabric::renderFabricText(railkit::fabric::analyseFabric(*fabric, {}, {}, &*map));
  return 0;
}
