// Feeds arbitrary bytes to the lldpctl JSON reader and, when they parse,
// builds the Ethernet fabric of two nodes that heard the same and checks it:
// never a crash; a rejected input names its source; every neighbour read has
// an interface, a switch and a port.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fabric/lldp.h"
#include "fabric/report.h"
#include "fabric/scheduler_topology.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto capture = railkit::fabric::parseLldpctlJson(text, "fuzz", "n1");
  if (!capture) {
    if (capture.error().message.rfind("fuzz", 0) != 0) __builtin_trap();
    return 0;
  }
  for (const auto& n : capture->neighbors)
    if (n.interface.empty() || (n.chassis_name.empty() && n.chassis_id.empty()) || n.port_id.empty() ||
        n.port_name.empty())
      __builtin_trap();
  auto second = *capture;
  second.host = "n2";
  std::vector<railkit::fabric::LldpCapture> captures{*capture, second};
  auto rails = railkit::fabric::lldpInterfaces(captures);
  auto fabric = railkit::fabric::lldpFabric(captures);
  auto report = railkit::fabric::analyseFabric(fabric, {}, {}, nullptr, nullptr, &rails);
  (void)railkit::fabric::renderFabricText(report);
  (void)railkit::fabric::schedulerTopology(fabric, report.tiers);
  return 0;
}
