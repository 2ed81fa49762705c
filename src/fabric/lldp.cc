#include "fabric/lldp.h"

#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "core/input_file.h"

namespace railkit::fabric {
namespace {

class LldpReader {
  using json = nlohmann::json;

 public:
  LldpReader(std::string source, std::string host) : source_(std::move(source)), host_(std::move(host)) {}

  Result<LldpCapture> read(std::string_view text) {
    json doc;
    try {
      doc = json::parse(text.begin(), text.end());
    } catch (const json::parse_error& e) {
      std::string what = e.what();  // "[json.exception.parse_error.101] parse error at line 1, ..."
      if (auto end = what.find("] "); end != std::string::npos) what.erase(0, end + 2);
      return fail("expected lldpctl's JSON (lldpctl -f json), found text that is not JSON: " + what);
    }
    if (!doc.is_object() || !doc.contains("lldp"))
      return fail(fmt::format("expected an object with \"lldp\" (lldpctl -f json), found {}", shape(doc)));
    const json& lldp = doc["lldp"];
    if (lldp.is_object()) {  // json
      if (auto st = interfaces(lldp, "lldp"); !st) return tl::unexpected(st.error());
    } else if (lldp.is_array()) {  // json0: [{"interface": [...]}]
      for (std::size_t i = 0; i < lldp.size(); ++i) {
        std::string path = fmt::format("lldp[{}]", i);
        if (!lldp[i].is_object()) return fail(path + ": expected an object, found " + shape(lldp[i]));
        if (auto st = interfaces(lldp[i], path); !st) return tl::unexpected(st.error());
      }
    } else {
      return fail("lldp: expected an object (json) or a list (json0), found " + shape(lldp));
    }
    return LldpCapture{source_, host_, std::move(neighbors_)};
  }

 private:
  tl::unexpected<Error> fail(const std::string& what) const {
    return tl::unexpected(Error{ErrorCode::kInvalidInput, source_ + ": " + what});
  }

  static std::string shape(const json& value) {
    if (value.is_object()) return "an object";
    if (value.is_array()) return "a list";
    if (value.is_string()) return "a string";
    if (value.is_boolean()) return "a boolean";
    if (value.is_number()) return "a number";
    return "null";
  }

  // A scalar as json or json0 writes it: "x", {"value": "x"} or [{"value": "x"}].
  static std::string text(const json& value, int depth = 0) {
    if (value.is_string()) return value.get<std::string>();
    if (value.is_number() || value.is_boolean()) return value.dump();
    if (depth > 2) return "";
    if (value.is_object() && value.contains("value")) return text(value["value"], depth + 1);
    if (value.is_array() && !value.empty()) return text(value[0], depth + 1);
    return "";
  }

  // json0 wraps every object in a one-element list.
  static const json& unwrap(const json& value) {
    return value.is_array() && value.size() == 1 ? value[0] : value;
  }

  // "interface": absent (no neighbour), one interface ({"eth0": {...}}), a
  // list of those, or json0's list of {"name": "eth0", ...}.
  Status interfaces(const json& parent, const std::string& parent_path) {
    auto it = parent.find("interface");
    if (it == parent.end() || it->is_null()) return {};
    std::string path = parent_path + ".interface";
    if (it->is_object()) return keyedInterfaces(*it, path);
    if (!it->is_array()) return fail(path + ": expected an object or a list, found " + shape(*it));
    for (std::size_t i = 0; i < it->size(); ++i) {
      const json& entry = (*it)[i];
      std::string at = fmt::format("{}[{}]", path, i);
      if (!entry.is_object()) return fail(at + ": expected an object, found " + shape(entry));
      auto st = entry.contains("name") && entry["name"].is_string() ? neighbor(entry["name"], entry, at)
                                                                    : keyedInterfaces(entry, at);
      if (!st) return st;
    }
    return {};
  }

  Status keyedInterfaces(const json& object, const std::string& path) {
    for (const auto& [name, entry] : object.items()) {
      std::string at = path + "." + name;
      if (!entry.is_object()) return fail(at + ": expected an object, found " + shape(entry));
      if (auto st = neighbor(name, entry, at); !st) return st;
    }
    return {};
  }

  Status neighbor(const json& name, const json& entry, const std::string& path) {
    LldpNeighbor n;
    n.interface = name.get<std::string>();
    n.path = path;
    if (n.interface.empty()) return fail(path + ": an interface without a name");
    auto chassis_it = entry.find("chassis");
    if (chassis_it == entry.end()) return fail(path + ": expected the neighbour's \"chassis\", found none");
    const json& chassis = unwrap(*chassis_it);
    if (!chassis.is_object()) return fail(path + ".chassis: expected an object, found " + shape(chassis));
    const json* body = &chassis;
    if (chassis.contains("name")) {  // json0
      n.chassis_name = text(chassis["name"]);
    } else if (!chassis.contains("id") && chassis.size() == 1 && chassis.begin().value().is_object()) {
      n.chassis_name = chassis.begin().key();  // json: keyed by the system name
      body = &chassis.begin().value();
    }
    if (auto id = body->find("id"); id != body->end()) {
      const json& i = unwrap(*id);
      if (i.is_object()) n.chassis_id = text(i.value("type", json())) + " " + text(i.value("value", json()));
    }
    if (n.chassis_name.empty() && n.chassis_id.empty())
      return fail(path + ".chassis: expected a system name or an id, found neither");
    auto port_it = entry.find("port");
    if (port_it == entry.end()) return fail(path + ": expected the neighbour's \"port\", found none");
    const json& port = unwrap(*port_it);
    if (!port.is_object()) return fail(path + ".port: expected an object, found " + shape(port));
    if (auto id = port.find("id"); id != port.end()) {
      const json& i = unwrap(*id);
      n.port_id = text(i.is_object() ? i.value("value", json()) : i);
      if (i.is_object()) n.port_id_type = text(i.value("type", json()));
    }
    if (n.port_id.empty()) return fail(path + ".port.id: expected the switch's port id, found none");
    if (auto descr = port.find("descr"); descr != port.end()) n.port_descr = text(*descr);
    bool named_id = n.port_id_type == "ifname" || n.port_id_type == "local" || n.port_id_type.empty();
    n.port_name = named_id || n.port_descr.empty() ? n.port_id : n.port_descr;
    neighbors_.push_back(std::move(n));
    return {};
  }

  std::string source_, host_;
  std::vector<LldpNeighbor> neighbors_;
};

// "eth10" after "eth2": digit runs compare as numbers.
bool naturalLess(const std::string& a, const std::string& b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (std::isdigit(static_cast<unsigned char>(a[i])) && std::isdigit(static_cast<unsigned char>(b[j]))) {
      std::size_t ie = i, je = j;
      while (ie < a.size() && std::isdigit(static_cast<unsigned char>(a[ie]))) ++ie;
      while (je < b.size() && std::isdigit(static_cast<unsigned char>(b[je]))) ++je;
      std::string_view da(a.data() + i, ie - i), db(b.data() + j, je - j);
      while (da.size() > 1 && da.front() == '0') da.remove_prefix(1);
      while (db.size() > 1 && db.front() == '0') db.remove_prefix(1);
      if (da.size() != db.size()) return da.size() < db.size();
      if (da != db) return da < db;
      i = ie, j = je;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i, ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

}  // namespace

Result<LldpCapture> parseLldpctlJson(std::string_view text, std::string source, std::string host) {
  return LldpReader(std::move(source), std::move(host)).read(text);
}

Result<LldpCapture> readLldpFile(const std::string& spec) {
  std::string path = spec, host;
  if (auto eq = spec.find('='); eq != std::string::npos && eq > 0) {
    host = spec.substr(0, eq);
    path = spec.substr(eq + 1);
  } else {
    host = std::filesystem::path(spec).stem().string();
  }
  if (host.empty() || host.find_first_of(" \t\r\n") != std::string::npos)
    return makeError(
        ErrorCode::kUsage,
        "fabric --lldp " + spec + ": expected HOST=FILE or a file named after its node (node017.json)");
  InputFileOptions options;
  options.what = "lldpctl capture";
  auto text = readInputFile(path, options);
  if (!text) return tl::unexpected(text.error());
  return parseLldpctlJson(*text, path, host);
}

std::vector<std::string> lldpInterfaces(const std::vector<LldpCapture>& captures) {
  std::set<std::string> names;
  for (const auto& c : captures)
    for (const auto& n : c.neighbors) names.insert(n.interface);
  std::vector<std::string> out(names.begin(), names.end());
  std::sort(out.begin(), out.end(), naturalLess);
  return out;
}

Fabric lldpFabric(const std::vector<LldpCapture>& captures, const std::vector<std::string>& interfaces,
                  std::string source) {
  Fabric fabric;
  fabric.source = std::move(source);
  std::map<std::string, std::size_t> switches;               // chassis name (else id) -> node
  std::map<std::pair<std::size_t, std::string>, int> ports;  // (switch, port id) -> number
  auto cable = [&](std::size_t ca, std::size_t sw, int port, const std::string& from) {
    fabric.nodes[ca].ports.push_back(PortLink{1, sw, port, 0, "", 0, 0, from});
    int ca_port = 1;
    fabric.nodes[sw].ports.push_back(PortLink{port, ca, ca_port, 0, "", 0, 0, from});
  };
  for (const auto& capture : captures) {
    std::map<std::string, std::size_t> cas;  // this host's interface -> node
    for (const auto& n : capture.neighbors) {
      const std::string& port_of_node = n.device.empty() ? n.interface : n.device;
      auto listed = [&](const std::string& name) {
        return std::find(interfaces.begin(), interfaces.end(), name) != interfaces.end();
      };
      if (!interfaces.empty() && !listed(n.interface) && !listed(n.device)) continue;
      std::string key = n.chassis_name.empty() ? n.chassis_id : n.chassis_name;
      auto [sw_it, new_switch] = switches.emplace(key, fabric.nodes.size());
      if (new_switch) {
        Node sw;
        sw.kind = NodeKind::kSwitch;
        sw.id = key;
        sw.description = key;
        fabric.nodes.push_back(std::move(sw));
      }
      std::size_t sw = sw_it->second;
      auto [port_it, new_port] = ports.emplace(std::make_pair(sw, n.port_id),
                                               static_cast<int>(fabric.nodes[sw].port_names.size()) + 1);
      if (new_port) fabric.nodes[sw].port_names[port_it->second] = n.port_name;
      auto [ca_it, new_ca] = cas.emplace(port_of_node, fabric.nodes.size());
      if (new_ca) {
        Node ca;
        ca.kind = NodeKind::kCa;
        ca.id = capture.host + "/" + port_of_node;
        ca.description = capture.host + " " + port_of_node;
        ca.port_count = 1;
        fabric.nodes.push_back(std::move(ca));
      }
      cable(ca_it->second, sw, port_it->second, capture.source);
    }
  }
  for (auto& node : fabric.nodes)
    if (node.kind == NodeKind::kSwitch) node.port_count = static_cast<int>(node.port_names.size());
  return fabric;
}

}  // namespace railkit::fabric
