#pragma once
// Finding: the one shape every command reports problems in (doctor, logs,
// lint). An id names a problem, not a detector: `ipc-lock-missing` may come
// from a running pod, a manifest or an NCCL log. See PRODUCT.md.

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

namespace railkit {

enum class Severity { kError, kWarning, kInfo };
const char* severityName(Severity severity);

// One piece of proof: where it was read and what it said.
struct Evidence {
  std::string source;        // file or sysfs path
  std::optional<long> line;  // line number when the source has lines
  std::string text;          // the value or line read
};

struct Finding {
  std::string id;
  Severity severity = Severity::kInfo;
  std::string subject;  // device, port, interface, rank or object
  std::string message;
  std::vector<Evidence> evidence;
  std::string fix;
  // Set by `logs` (the input) and `lint` (file, line, object, field path).
  std::string file;
  std::optional<long> line;
  std::string object;
  std::string path;
};

nlohmann::json findingToJson(const Finding& finding);
nlohmann::json findingsToJson(const std::vector<Finding>& findings);
bool hasErrors(const std::vector<Finding>& findings);

}  // namespace railkit
