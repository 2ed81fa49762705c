// Feeds arbitrary bytes to the iblinkinfo parser and, when they parse, to
// fabric-port-down beside a small fabric: never a crash; a rejected input
// names its source; every port read has a state and a number.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fabric/iblinkinfo.h"
#include "fabric/ibnetdiscover.h"
#include "fabric/report.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto links = railkit::fabric::parseIblinkinfo(text, "fuzz");
  if (!links) {
    if (links.error().message.rfind("fuzz", 0) != 0) __builtin_trap();
    return 0;
  }
  for (const auto& p : links->ports)
    if (p.port < 1 || p.port > 255 || p.state.empty() || p.line < 1) __builtin_trap();
  static const auto fabric = railkit::fabric::parseIbnetdiscover(
      "Switch\t8 \"S-0000000000200001\"\t# \"leaf-r1\"\n[1]\t\"H-1\"[1]\n[5]\t\"S-0000000000200002\"[2]\n\n"
      "Switch\t8 \"S-0000000000200002\"\t# \"spine1\"\n[2]\t\"S-0000000000200001\"[5]\n\n"
      "Ca\t1 \"H-1\"\t# \"node001 mlx5_1\"\n[1]\t\"S-0000000000200001\"[1]\n",
      "f");
  if (!fabric) __builtin_trap();
  (void)railkit::fabric::renderFabricText(railkit::fabric::analyseFabric(*fabric, {}, {}, nullptr, &*links));
  return 0;
}
