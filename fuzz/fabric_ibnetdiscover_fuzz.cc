// Feeds arbitrary bytes to the ibnetdiscover parser and, when they parse, to
// the rail view, every fabric check, the JSON document and the human view:
// never a crash, a hang or an out-of-bounds read. A rejected input names its
// source and line; a parsed fabric has every cable at both ends, agreeing.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>

#include "fabric/ibnetdiscover.h"
#include "fabric/report.h"

using railkit::fabric::kNoNode;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto fabric = railkit::fabric::parseIbnetdiscover(text, "fuzz");
  if (!fabric) {
    if (fabric.error().message.rfind("fuzz", 0) != 0) __builtin_trap();
    if (fabric.error().message.find('\n') != std::string::npos) __builtin_trap();
    return 0;
  }
  const auto& nodes = fabric->nodes;
  for (std::size_t a = 0; a < nodes.size(); ++a) {
    for (const auto& link : nodes[a].ports) {
      if (link.peer == kNoNode || link.peer >= nodes.size()) __builtin_trap();
      int back = 0;
      for (const auto& other : nodes[link.peer].ports)
        back += other.port == link.peer_port && other.peer == a && other.peer_port == link.port;
      if (back != 1) __builtin_trap();
    }
  }
  auto report = railkit::fabric::analyseFabric(*fabric);
  auto doc = railkit::fabric::fabricDocument(report);
  (void)doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  (void)railkit::fabric::renderFabricText(report);
  return 0;
}
