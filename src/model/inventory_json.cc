// inventoryToJson: the documented JSON of `inspect` (docs/inspect.md).
#include <cstdio>
#include <nlohmann/json.hpp>

#include "core/json_util.h"
#include "model/collect.h"
#include "model/collect_parts.h"

namespace railkit::model {

// Types whose JSON is their fields under the same names; the rest below carry
// optionals (null when unknown) or derived members and keep hand-written code.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Gid, index, gid, type, netdev)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(PciBridge, address, sysfs_path, config_size, acs_known, acs_capable,
                                   acs_control, request_redirect, source_validation)

namespace {
using nlohmann::json;

std::string hex16(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

// Priorities whose bit is set, or null when unknown.
json prios(const std::optional<uint8_t>& mask) {
  if (!mask) return nullptr;
  json out = json::array();
  for (int p = 0; p < 8; ++p)
    if (*mask & (1u << p)) out.push_back(p);
  return out;
}

json pciJson(const PciFunction& f) {
  return {{"address", f.address},
          {"sysfs_path", f.sysfs_path},
          {"vendor", f.vendor},
          {"device", f.device},
          {"class", f.class_code},
          {"numa_node", jsonOpt(f.numa_node)},
          {"driver", f.driver},
          {"link",
           {{"current_width", jsonOpt(f.link.current_width)},
            {"max_width", jsonOpt(f.link.max_width)},
            {"current_speed_gts", jsonOpt(f.link.current_speed_gts)},
            {"max_speed_gts", jsonOpt(f.link.max_speed_gts)}}},
          {"upstream_bridges", f.upstream_bridges}};
}
}  // namespace

json inventoryToJson(const Inventory& inv) {
  json j;
  j["root"] = inv.root;
  j["rdma_devices"] = json::array();
  for (const auto& d : inv.rdma_devices) {
    json dev = {{"name", d.name},
                {"node_type", d.node_type},
                {"fw_ver", d.fw_ver},
                {"node_guid", d.node_guid},
                {"pci", jsonOpt(d.pci, pciJson)}};
    dev["sriov"] = {{"num_vfs", jsonOpt(d.sriov.num_vfs)},
                    {"total_vfs", jsonOpt(d.sriov.total_vfs)},
                    {"vfs", d.sriov.vfs},
                    {"physfn", d.sriov.physfn}};
    dev["ports"] = json::array();
    for (const auto& p : d.ports) {
      json port = {{"port", p.port},
                   {"state", p.state},
                   {"phys_state", p.phys_state},
                   {"rate_gbps", jsonOpt(p.rate_gbps)},
                   {"rate", p.rate_text},
                   {"link_layer", p.link_layer},
                   {"lid", jsonOpt(p.lid)},
                   {"sm_lid", jsonOpt(p.sm_lid)},
                   {"netdev", p.netdev}};
      port["gids"] = p.gids;
      dev["ports"].push_back(std::move(port));
    }
    j["rdma_devices"].push_back(std::move(dev));
  }
  j["gpus"] = json::array();
  for (const auto& g : inv.gpus)
    j["gpus"].push_back({{"name", g.name},
                         {"vendor", g.vendor_name},
                         {"model", g.model},
                         {"pci", g.pci.address},
                         {"pci_function", pciJson(g.pci)}});
  j["interfaces"] = json::array();
  for (const auto& n : inv.interfaces)
    j["interfaces"].push_back(
        {{"name", n.name},
         {"type", n.type},
         {"operstate", n.operstate},
         {"mtu", jsonOpt(n.mtu)},
         {"pci", n.pci},
         {"dev_port", jsonOpt(n.dev_port)},
         {"addresses", jsonOpt(n.addresses_known, n.addresses)},
         {"ecn", jsonOpt(n.ecn_np || n.ecn_rp,
                         json{{"roce_np_enabled", prios(n.ecn_np)}, {"roce_rp_enabled", prios(n.ecn_rp)}})}});
  auto net = networkStateToJson(inv);
  j["routing"] = net.value("routing", json(nullptr));
  j["dcb"] = net.value("dcb", json(nullptr));
  j["default_route_interface"] = inv.default_route_interface;
  j["modules"] = json::object();
  for (const auto& m : inv.modules) j["modules"][m.name] = m.loaded;
  j["rdma_netns_shared"] = jsonOpt(inv.rdma_netns_shared);
  j["dev_infiniband"] = jsonOpt(inv.dev_infiniband_present, inv.dev_infiniband);
  const auto& p = inv.process;
  j["process"] = {
      {"cap_eff", jsonOpt(p.cap_eff, hex16)},
      {"cap_ipc_lock", jsonOpt(p.cap_eff, [](auto cap) { return ((cap >> 14) & 1) != 0; })},
      {"memlock", jsonOpt(p.memlock.known, json{{"unlimited", p.memlock.unlimited},
                                                {"bytes", jsonOpt(!p.memlock.unlimited, p.memlock.bytes)}})},
      {"shm_bytes", jsonOpt(p.shm_bytes)},
      {"shm_source", p.shm_source},
      {"env", p.env}};
  j["pcie_bridges"] = inv.bridges;
  j["topology"] = {{"source", inv.topology.source}, {"gpu_nic", json::array()}};
  for (const auto& d : inv.topology.gpu_nic)
    j["topology"]["gpu_nic"].push_back(
        {{"gpu", d.gpu}, {"nic", d.nic}, {"distance", distanceName(d.distance)}});
  return j;
}

}  // namespace railkit::model
