#include "validate/node_report.h"

#include <fmt/format.h>

#include "model/collect.h"
#include "validate/consistency.h"

namespace railkit::validate {
namespace {

nlohmann::json countOrNull(const std::optional<int>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }

// Thrown inside parseNodeReport only, caught there: the first member at fault.
struct ShapeError {
  std::string message;
};

const nlohmann::json& member(const nlohmann::json& object, const char* key, const std::string& path) {
  auto it = object.find(key);
  if (it == object.end()) throw ShapeError{fmt::format("{}.{}: missing", path, key)};
  return *it;
}

std::string text(const nlohmann::json& object, const char* key, const std::string& path) {
  const auto& v = member(object, key, path);
  if (!v.is_string()) throw ShapeError{fmt::format("{}.{}: expected a string, found {}", path, key, v.type_name())};
  return v.get<std::string>();
}

nlohmann::json count(const nlohmann::json& object, const char* key, const std::string& path, bool nullable) {
  const auto& v = member(object, key, path);
  if ((nullable && v.is_null()) || (v.is_number_integer() && v.get<long long>() >= 0 && v.get<long long>() < 1 << 20)) {
    return v;
  }
  throw ShapeError{fmt::format("{}.{}: expected a count{}, found {}", path, key, nullable ? " or null" : "",
                               v.dump().substr(0, 40))};
}

nlohmann::json finding(const nlohmann::json& f, const std::string& path) {
  if (!f.is_object()) throw ShapeError{path + ": expected an object, found " + f.type_name()};
  std::string severity = text(f, "severity", path);
  if (severity != "error" && severity != "warning" && severity != "info") {
    throw ShapeError{fmt::format("{}.severity: expected error, warning or info, found '{}'", path, severity.substr(0, 40))};
  }
  nlohmann::json evidence = nlohmann::json::array();
  const auto& ev = member(f, "evidence", path);
  if (!ev.is_array()) throw ShapeError{path + ".evidence: expected an array, found " + ev.type_name()};
  for (std::size_t i = 0; i < ev.size(); ++i) {
    std::string at = fmt::format("{}.evidence[{}]", path, i);
    if (!ev[i].is_object()) throw ShapeError{at + ": expected an object"};
    nlohmann::json e{{"source", text(ev[i], "source", at)}, {"text", text(ev[i], "text", at)}};
    if (auto line = ev[i].find("line"); line != ev[i].end() && line->is_number_integer()) e["line"] = *line;
    evidence.push_back(std::move(e));
  }
  return {{"id", text(f, "id", path)},           {"severity", severity},
          {"subject", text(f, "subject", path)}, {"message", text(f, "message", path)},
          {"fix", text(f, "fix", path)},         {"evidence", evidence}};
}

nlohmann::json checkedReport(const nlohmann::json& doc, int rank) {
  const std::string path = fmt::format("rank {} report", rank);
  if (!doc.is_object()) throw ShapeError{path + ": expected an object, found " + doc.type_name()};
  nlohmann::json out{{"rank", rank}, {"host", text(doc, "host", path)}};
  const auto& findings = member(doc, "findings", path);
  if (!findings.is_array()) throw ShapeError{path + ".findings: expected an array"};
  out["findings"] = nlohmann::json::array();
  for (std::size_t i = 0; i < findings.size(); ++i) {
    out["findings"].push_back(finding(findings[i], fmt::format("{}.findings[{}]", path, i)));
  }
  const auto& counts = member(doc, "counts", path);
  if (!counts.is_object()) throw ShapeError{path + ".counts: expected an object"};
  const std::string at = path + ".counts";
  out["counts"] = {{"nics_active", count(counts, "nics_active", at, false)},
                   {"nics_expected", count(counts, "nics_expected", at, true)},
                   {"gpus", count(counts, "gpus", at, false)},
                   {"gpus_expected", count(counts, "gpus_expected", at, true)}};
  auto attributes = attributesFromJson(member(doc, "attributes", path));
  if (!attributes) throw ShapeError{path + ".attributes: " + attributes.error().message};
  out["attributes"] = attributesToJson(*attributes);
  const auto& rate = member(doc, "nic_gbps", path);
  if (!rate.is_null() && !rate.is_number()) throw ShapeError{path + ".nic_gbps: expected a number or null"};
  out["nic_gbps"] = rate;
  out["nic_rate_source"] = text(doc, "nic_rate_source", path);
  const auto& inventory = member(doc, "inventory", path);
  if (!inventory.is_object()) throw ShapeError{path + ".inventory: expected an object"};
  out["inventory"] = inventory;
  return out;
}

}  // namespace

nlohmann::json makeNodeReport(int rank, const NodeInput& node, const NodeCheck& check) {
  nlohmann::json counts{{"nics_active", check.counts.nics_active},
                        {"nics_expected", countOrNull(check.counts.nics_expected)},
                        {"gpus", check.counts.gpus},
                        {"gpus_expected", countOrNull(check.counts.gpus_expected)}};
  return {{"rank", rank},
          {"host", node.host},
          {"findings", findingsToJson(check.findings)},
          {"counts", counts},
          {"attributes", attributesToJson(nodeAttributes(node.inventory))},
          {"nic_gbps", node.nic_gbps ? nlohmann::json(*node.nic_gbps) : nlohmann::json(nullptr)},
          {"nic_rate_source", node.nic_rate_source},
          {"inventory", model::inventoryToJson(node.inventory)}};
}

nlohmann::json parseNodeReport(std::string_view blob, int rank) {
  auto doc = nlohmann::json::parse(blob, nullptr, false);
  try {
    if (doc.is_discarded()) throw ShapeError{fmt::format("rank {} report: not JSON ({} bytes)", rank, blob.size())};
    return checkedReport(doc, rank);
  } catch (const ShapeError& e) {
    return {{"rank", rank},
            {"host", fmt::format("rank {}", rank)},
            {"report_error", e.message + " (a different railkit version on that node?)"},
            {"findings", nlohmann::json::array()},
            {"attributes", nlohmann::json::object()}};
  }
}

}  // namespace railkit::validate
