#include "podenv/output.h"

#include <nlohmann/json.hpp>

#include "core/json_util.h"
#include "core/strings.h"
#include "podenv/names.h"

namespace railkit::podenv {

// A missing item's JSON is its fields under the same names.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Missing, kind, name, reason)

std::string describeMissing(const Missing& m) {
  std::string what = m.kind == "data-if"   ? "data interface " + m.name
                     : m.kind == "hca"     ? "RDMA device " + m.name
                     : m.kind == "ctrl-if" ? "control interface " + m.name
                                           : std::string("RDMA");
  return what + ": " + m.reason;
}

std::string renderShell(const PodEnv& env, bool exports_allowed) {
  std::string interfaces;
  for (const auto& p : env.ports)
    interfaces += (interfaces.empty() ? "" : ",") + (p.netdev.empty() ? p.name() : p.netdev);
  // A comment ends at a newline: text from sysfs in a note must not.
  std::string out = "# " +
                    commentSafe("railkit env: control " + env.control_interface + " (" + env.control_source +
                                "), " + std::to_string(env.ports.size()) + " RDMA port(s)" +
                                (interfaces.empty() ? "" : " behind " + interfaces)) +
                    "\n";
  for (const auto& note : env.notes) out += "# note: " + commentSafe(note) + "\n";
  for (const auto& m : env.missing) out += "# missing: " + commentSafe(describeMissing(m)) + "\n";
  // Every value was checked (podenv/names.h); quoting is the second fence.
  if (exports_allowed)
    for (const auto& [name, value] : env.exports) out += "export " + name + "=" + shellQuote(value) + "\n";
  return out;
}

nlohmann::json podEnvToJson(const PodEnv& env, const std::string& root, bool ok) {
  nlohmann::json exports = nlohmann::json::object();
  for (const auto& [name, value] : env.exports) exports[name] = value;
  nlohmann::json ports = nlohmann::json::array();
  for (const auto& p : env.ports)
    ports.push_back({{"device", p.device},
                     {"port", p.port},
                     {"netdev", p.netdev},
                     {"link_layer", p.link_layer},
                     {"state", p.state},
                     {"gid_index", jsonOpt(p.gid_index)},
                     {"mapped_by", p.mapped_by}});
  return {{"root", root},
          {"control_interface", env.control_interface},
          {"control_source", env.control_source},
          {"exports", exports},
          {"ports", ports},
          {"notes", env.notes},
          {"missing", env.missing},
          {"ok", ok}};
}

}  // namespace railkit::podenv
