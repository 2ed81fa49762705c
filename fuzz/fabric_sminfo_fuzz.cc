// Feeds arbitrary bytes to the sminfo parser and, when they parse, to the
// subnet-manager checks beside a small fabric: never a crash; a rejected
// input names its source; a record's state is one sminfo can print.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fabric/ibnetdiscover.h"
#include "fabric/report.h"
#include "fabric/sminfo.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto capture = railkit::fabric::parseSminfo(text, "fuzz");
  if (!capture) {
    if (capture.error().message.rfind("fuzz", 0) != 0) __builtin_trap();
    return 0;
  }
  for (const auto& r : capture->records)
    if (r.state < 0 || r.state > 3 || r.line < 1 || r.priority > 15) __builtin_trap();
  static const auto fabric = railkit::fabric::parseIbnetdiscover(
      "Switch\t4 \"S-1\"\t# \"leaf\"\n[1]\t\"H-1\"[1]\n\nCa\t1 \"H-1\"\t# \"n1 mlx5_0\"\n[1]\t\"S-1\"[1]\n",
      "f");
  if (!fabric) __builtin_trap();
  auto report = railkit::fabric::analyseFabric(*fabric, {*capture, *capture});
  (void)railkit::fabric::renderFabricText(report);
  return 0;
}
