// Fuzzes a snapshot's railkit/live.json routing and dcb sections through the
// inventory (model::networkStateFromJson) and every doctor rule, on a node
// with two RoCE rails in one subnet and one InfiniBand port: whatever the
// JSON says, reading it and judging it must not crash, and writing it back
// must give JSON that reads back to the same state.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>

#include "doctor/rule.h"
#include "model/collect_parts.h"

namespace {

railkit::model::Inventory node() {
  railkit::model::Inventory inv;
  for (int i = 0; i < 3; ++i) {
    railkit::model::RdmaDevice d;
    d.name = "mlx5_" + std::to_string(i);
    railkit::model::RdmaPort p;
    p.port = 1;
    p.state = "ACTIVE";
    p.phys_state = "LinkUp";
    p.link_layer = i < 2 ? "Ethernet" : "InfiniBand";
    p.netdev = i < 2 ? "eth" + std::to_string(i + 1) : "";
    d.ports.push_back(p);
    inv.rdma_devices.push_back(d);
    if (i == 2) continue;
    railkit::model::NetInterface n;
    n.name = p.netdev;
    n.addresses = {"10.0.0." + std::to_string(i + 1) + "/24"};
    n.addresses_known = true;
    n.ecn_np = 0x0f;
    n.ecn_rp = 0xf0;
    inv.interfaces.push_back(n);
  }
  inv.modules = {{"ib_core", true}, {"ib_ipoib", false}};
  inv.process.env = {{"NCCL_IB_TC", "106"}, {"NCCL_SOCKET_IFNAME", "ib"}};
  return inv;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto live = nlohmann::json::parse(std::string_view(reinterpret_cast<const char*>(data), size), nullptr,
                                    /*allow_exceptions=*/false);
  if (!live.is_object()) return 0;
  auto inv = node();
  railkit::model::networkStateFromJson(live, inv);
  (void)railkit::doctor::runRules(railkit::doctor::DoctorInput{inv});
  auto written = railkit::model::networkStateToJson(inv);
  auto again = node();
  railkit::model::networkStateFromJson(written, again);
  if (railkit::model::networkStateToJson(again) != written) __builtin_trap();
  return 0;
}
