#pragma once
// Small helpers shared by rule files: building findings and evidence, and the
// facts several rules look at (module loaded, RDMA present, usable ports).

#include <optional>
#include <string>
#include <vector>

#include "core/name_list.h"
#include "doctor/rule.h"
#include "sys/paths.h"

namespace railkit::doctor {

inline Finding makeFinding(const char* id, Severity severity, std::string subject, std::string message,
                           std::vector<Evidence> evidence, std::string fix) {
  Finding f;
  f.id = id;
  f.severity = severity;
  f.subject = std::move(subject);
  f.message = std::move(message);
  f.evidence = std::move(evidence);
  f.fix = std::move(fix);
  return f;
}

inline bool moduleLoaded(const model::Inventory& inv, const std::string& name) {
  for (const auto& m : inv.modules)
    if (m.name == name) return m.loaded;
  return false;
}

inline std::string portPath(const std::string& dev, int port, const std::string& file) {
  return std::string(sys::paths::kClassInfiniband) + "/" + dev + "/ports/" + std::to_string(port) + "/" +
         file;
}

inline std::string netPath(const std::string& netdev, const std::string& file) {
  return std::string(sys::paths::kClassNet) + "/" + netdev + "/" + file;
}

// A port that carries traffic (model/inventory.h): the one definition env shares.
using model::portUsable;

// The usable ports NCCL will use: those NCCL_IB_HCA selects. When the list
// selects none (nccl-ib-hca-invalid reports that), every usable port: the
// user's fix is to correct the list, and the per-port settings must be
// checked against what it will then select, so that every problem shows in
// one run instead of appearing one after another as each is fixed.
struct NcclPorts {
  std::vector<std::pair<const model::RdmaDevice*, const model::RdmaPort*>> ports;
  bool hca_selects_none = false;  // NCCL_IB_HCA given, no usable port selected
};

inline NcclPorts ncclPorts(const model::Inventory& inv) {
  NcclPorts out;
  auto hca = lookup(inv.process.env, "NCCL_IB_HCA");
  auto spec = parseNameList(hca.value_or(""), /*allow_ports=*/true);
  bool filter = hca && !spec.entries.empty();
  for (int pass = 0; pass < 2 && out.ports.empty(); ++pass) {
    for (const auto& d : inv.rdma_devices)
      for (const auto& p : d.ports)
        if (portUsable(p) && (pass == 1 || !filter || nameListSelects(spec, d.name, p.port)))
          out.ports.push_back({&d, &p});
    if (pass == 0 && out.ports.empty()) out.hca_selects_none = filter;
    if (!filter) break;
  }
  return out;
}

inline const model::NetInterface* findInterface(const model::Inventory& inv, const std::string& name) {
  for (const auto& n : inv.interfaces)
    if (n.name == name) return &n;
  return nullptr;
}

// Evidence for one environment variable (or its absence).
inline Evidence envEvidence(const Environment& env, const std::string& key) {
  auto value = lookup(env, key);
  return {sys::paths::kSelfEnviron, std::nullopt, value ? key + "=" + *value : key + " unset"};
}

inline bool ompiInUse(const Environment& env) {
  for (const auto& [k, v] : env)
    if (k.rfind("OMPI_", 0) == 0) return true;
  return false;
}

// "a, b, c" (at most `limit` items, then "and N more").
inline std::string joinNames(const std::vector<std::string>& names, size_t limit = 8) {
  std::string out;
  for (size_t i = 0; i < names.size() && i < limit; ++i) out += (i ? ", " : "") + names[i];
  if (names.size() > limit) out += " and " + std::to_string(names.size() - limit) + " more";
  return out;
}

}  // namespace railkit::doctor
