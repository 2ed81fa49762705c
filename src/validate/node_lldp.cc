#include "validate/node_lldp.h"

#include <fmt/format.h>

#include <regex>
#include <utility>

#include "sys/run_command.h"

namespace railkit::validate {
namespace {

// The neighbour's members as the report carries them, declared once for
// the writer and the strict reader. `path` is not sent: it points into a
// document only the node saw.
constexpr std::pair<const char*, std::string fabric::LldpNeighbor::*> kNeighborMembers[] = {
    {"interface", &fabric::LldpNeighbor::interface},
    {"device", &fabric::LldpNeighbor::device},
    {"chassis_name", &fabric::LldpNeighbor::chassis_name},
    {"chassis_id", &fabric::LldpNeighbor::chassis_id},
    {"port_id", &fabric::LldpNeighbor::port_id},
    {"port_id_type", &fabric::LldpNeighbor::port_id_type},
    {"port_descr", &fabric::LldpNeighbor::port_descr},
    {"port_name", &fabric::LldpNeighbor::port_name},
};

tl::unexpected<Error> lldpFault(const std::string& message) {
  return makeError(ErrorCode::kInvalidInput, message);
}

Result<std::string> lldpText(const nlohmann::json& object, const char* key, const std::string& path) {
  auto it = object.find(key);
  if (it == object.end()) return lldpFault(fmt::format("{}.{}: missing", path, key));
  if (!it->is_string())
    return lldpFault(fmt::format("{}.{}: expected a string, found {}", path, key, it->type_name()));
  return it->get<std::string>();
}

Result<fabric::LldpNeighbor> neighborFromJson(const nlohmann::json& json, const std::string& path) {
  if (!json.is_object())
    return lldpFault(fmt::format("{}: expected an object, found {}", path, json.type_name()));
  fabric::LldpNeighbor n;
  for (const auto& [key, field] : kNeighborMembers) {
    auto value = lldpText(json, key, path);
    if (!value) return tl::unexpected(value.error());
    n.*field = std::move(*value);
  }
  if (n.interface.empty()) return lldpFault(path + ".interface: empty");
  if (n.chassis_name.empty() && n.chassis_id.empty())
    return lldpFault(path + ": neither chassis_name nor chassis_id");
  n.path = path;
  return n;
}

}  // namespace

void mapLldpDevices(std::vector<fabric::LldpNeighbor>& neighbors, const model::Inventory& inventory) {
  for (auto& n : neighbors) {
    n.device.clear();
    for (const auto& d : inventory.rdma_devices)
      for (const auto& p : d.ports)
        if (!p.netdev.empty() && p.netdev == n.interface && n.device.empty()) n.device = d.name;
  }
}

NodeLldp readNodeLldp(const std::string& command, const std::string& host, const model::Inventory& inventory,
                      const Environment& env) {
  NodeLldp lldp;
  lldp.command = command;
  if (command.empty()) {
    lldp.unavailable = "off (--lldpctl is empty)";
    return lldp;
  }
  sys::CommandOptions options;
  options.env = &env;
  options.timeout = kLldpctlTimeout;
  options.max_stdout = std::size_t{16} << 20;
  auto out = sys::runCommand({"/bin/sh", "-c", command}, options);
  if (!out) {
    // lldpctl missing (127) or lldpd not running: the node has no LLDP to
    // give, which says nothing about the node itself.
    // lldpctl stamps its log lines with the time: without it the same
    // failure on every node reads the same, and rank 0's note groups them.
    static const std::regex stamp(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d )");
    lldp.unavailable =
        fmt::format("'{}' failed: {}", command, std::regex_replace(out.error().message, stamp, ""));
    return lldp;
  }
  auto capture = fabric::parseLldpctlJson(*out, command, host);
  if (!capture) {
    lldp.unavailable = fmt::format("'{}' printed no lldpctl JSON: {}", command, capture.error().message);
    return lldp;
  }
  lldp.read = true;
  lldp.neighbors = std::move(capture->neighbors);
  mapLldpDevices(lldp.neighbors, inventory);
  return lldp;
}

nlohmann::json lldpToJson(const NodeLldp& lldp) {
  nlohmann::json out{{"command", lldp.command}};
  if (!lldp.read) {
    out["unavailable"] = lldp.unavailable;
    return out;
  }
  out["neighbors"] = nlohmann::json::array();
  for (const auto& n : lldp.neighbors) {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& [key, field] : kNeighborMembers) j[key] = n.*field;
    out["neighbors"].push_back(std::move(j));
  }
  return out;
}

Result<NodeLldp> lldpFromJson(const nlohmann::json& json, const std::string& path) {
  if (!json.is_object())
    return lldpFault(fmt::format("{}: expected an object, found {}", path, json.type_name()));
  NodeLldp lldp;
  auto command = lldpText(json, "command", path);
  if (!command) return tl::unexpected(command.error());
  lldp.command = std::move(*command);
  auto neighbors = json.find("neighbors");
  bool has_why = json.contains("unavailable");
  if ((neighbors == json.end()) == !has_why)
    return lldpFault(path + ": expected exactly one of neighbors and unavailable");
  if (has_why) {
    auto why = lldpText(json, "unavailable", path);
    if (!why) return tl::unexpected(why.error());
    lldp.unavailable = std::move(*why);
    return lldp;
  }
  if (!neighbors->is_array())
    return lldpFault(fmt::format("{}.neighbors: expected an array, found {}", path, neighbors->type_name()));
  lldp.read = true;
  for (std::size_t i = 0; i < neighbors->size(); ++i) {
    auto n = neighborFromJson((*neighbors)[i], fmt::format("{}.neighbors[{}]", path, i));
    if (!n) return tl::unexpected(n.error());
    lldp.neighbors.push_back(std::move(*n));
  }
  return lldp;
}

}  // namespace railkit::validate
