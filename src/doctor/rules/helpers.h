#pragma once
// Small helpers shared by rule files: building findings and evidence, and the
// facts several rules look at (module loaded, RDMA present).

#include <string>
#include <vector>

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
  return std::string(sys::paths::kClassInfiniband) + "/" + dev + "/ports/" + std::to_string(port) + "/" + file;
}

}  // namespace railkit::doctor
