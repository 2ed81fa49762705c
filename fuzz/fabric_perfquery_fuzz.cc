// Feeds arbitrary bytes to the perfquery parser and, when they parse, to
// fabric-port-errors as one read and as the later of two reads beside a
// small fabric: never a crash; a rejected input names its source.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fabric/ibnetdiscover.h"
#include "fabric/perfquery.h"
#include "fabric/report.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto capture = railkit::fabric::parsePerfquery(text, "fuzz");
  if (!capture) {
    if (capture.error().message.rfind("fuzz", 0) != 0) __builtin_trap();
    return 0;
  }
  for (const auto& p : capture->ports)
    if (p.line < 1 || p.port > 255 || p.values.size() != p.lines.size()) __builtin_trap();
  static const auto fabric = railkit::fabric::parseIbnetdiscover(
      "Switch\t4 \"S-1\"\t# \"leaf\" base port 0 lid 3 lmc 0\n[2]\t\"H-1\"[1]\t# \"n1 mlx5_0\" lid 4 "
      "4xQDR\n\n"
      "Ca\t1 \"H-1\"\t# \"n1 mlx5_0\"\n[1]\t\"S-1\"[2]\t# lid 4 lmc 0 \"leaf\" lid 3 4xQDR\n",
      "f");
  if (!fabric) __builtin_trap();
  auto one = railkit::fabric::analyseFabric(*fabric, {}, {*capture});
  auto two = railkit::fabric::analyseFabric(*fabric, {}, {*capture, *capture});
  if (two.errors != 0) __builtin_trap();  // nothing rises between a read and itself
  (void)railkit::fabric::renderFabricText(one);
  return 0;
}
