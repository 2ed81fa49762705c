#include "validate/node_report.h"

#include <fmt/format.h>

#include "core/json_util.h"
#include "model/collect.h"
#include "validate/consistency.h"
#include "validate/node_lldp.h"

namespace railkit::validate {
namespace {

// Each reader returns the member, or the first fault with its JSON path.
using Checked = Result<nlohmann::json>;

tl::unexpected<Error> fault(const std::string& message) {
  return makeError(ErrorCode::kInvalidInput, message);
}

Result<const nlohmann::json*> member(const nlohmann::json& object, const char* key, const std::string& path) {
  auto it = object.find(key);
  if (it == object.end()) return fault(fmt::format("{}.{}: missing", path, key));
  return &*it;
}

Checked text(const nlohmann::json& object, const char* key, const std::string& path) {
  auto v = member(object, key, path);
  if (!v) return tl::unexpected(v.error());
  if (!(*v)->is_string())
    return fault(fmt::format("{}.{}: expected a string, found {}", path, key, (*v)->type_name()));
  return **v;
}

Checked count(const nlohmann::json& object, const char* key, const std::string& path, bool nullable) {
  auto v = member(object, key, path);
  if (!v) return tl::unexpected(v.error());
  const auto& n = **v;
  if ((nullable && n.is_null()) ||
      (n.is_number_integer() && n.get<long long>() >= 0 && n.get<long long>() < 1 << 20)) {
    return n;
  }
  return fault(fmt::format("{}.{}: expected a count{}, found {}", path, key, nullable ? " or null" : "",
                           n.dump().substr(0, 40)));
}

Checked evidenceOf(const nlohmann::json& f, const std::string& path) {
  auto ev = member(f, "evidence", path);
  if (!ev) return tl::unexpected(ev.error());
  if (!(*ev)->is_array()) return fault(path + ".evidence: expected an array, found " + (*ev)->type_name());
  nlohmann::json out = nlohmann::json::array();
  for (std::size_t i = 0; i < (*ev)->size(); ++i) {
    const auto& item = (**ev)[i];
    std::string at = fmt::format("{}.evidence[{}]", path, i);
    if (!item.is_object()) return fault(at + ": expected an object");
    auto source = text(item, "source", at);
    auto said = text(item, "text", at);
    if (!source) return source;
    if (!said) return said;
    nlohmann::json e{{"source", *source}, {"text", *said}};
    if (auto line = item.find("line"); line != item.end() && line->is_number_integer()) e["line"] = *line;
    out.push_back(std::move(e));
  }
  return out;
}

Checked finding(const nlohmann::json& f, const std::string& path) {
  if (!f.is_object()) return fault(path + ": expected an object, found " + f.type_name());
  auto severity = text(f, "severity", path);
  if (!severity) return severity;
  if (*severity != "error" && *severity != "warning" && *severity != "info") {
    return fault(fmt::format("{}.severity: expected error, warning or info, found '{}'", path,
                             severity->get<std::string>().substr(0, 40)));
  }
  nlohmann::json out{{"severity", *severity}};
  for (const char* key : {"id", "subject", "message", "fix"}) {
    auto v = text(f, key, path);
    if (!v) return v;
    out[key] = *v;
  }
  auto evidence = evidenceOf(f, path);
  if (!evidence) return evidence;
  out["evidence"] = *evidence;
  return out;
}

Checked countsOf(const nlohmann::json& doc, const std::string& path) {
  auto counts = member(doc, "counts", path);
  if (!counts) return tl::unexpected(counts.error());
  if (!(*counts)->is_object()) return fault(path + ".counts: expected an object");
  const std::string at = path + ".counts";
  nlohmann::json out = nlohmann::json::object();
  for (auto [key, nullable] :
       {std::pair{"nics_active", false}, {"nics_expected", true}, {"gpus", false}, {"gpus_expected", true}}) {
    auto v = count(**counts, key, at, nullable);
    if (!v) return v;
    out[key] = *v;
  }
  return out;
}

Checked checkedReport(const nlohmann::json& doc, int rank) {
  const std::string path = fmt::format("rank {} report", rank);
  if (!doc.is_object()) return fault(path + ": expected an object, found " + doc.type_name());
  auto host = text(doc, "host", path);
  if (!host) return host;
  nlohmann::json out{{"rank", rank}, {"host", *host}, {"findings", nlohmann::json::array()}};
  auto findings = member(doc, "findings", path);
  if (!findings) return tl::unexpected(findings.error());
  if (!(*findings)->is_array()) return fault(path + ".findings: expected an array");
  for (std::size_t i = 0; i < (*findings)->size(); ++i) {
    auto f = finding((**findings)[i], fmt::format("{}.findings[{}]", path, i));
    if (!f) return f;
    out["findings"].push_back(std::move(*f));
  }
  auto counts = countsOf(doc, path);
  if (!counts) return counts;
  out["counts"] = *counts;
  auto attributes_json = member(doc, "attributes", path);
  if (!attributes_json) return tl::unexpected(attributes_json.error());
  auto attributes = attributesFromJson(**attributes_json);
  if (!attributes) return fault(path + ".attributes: " + attributes.error().message);
  out["attributes"] = attributesToJson(*attributes);
  auto labels = member(doc, "attribute_labels", path);
  if (!labels) return tl::unexpected(labels.error());
  if (auto st = applyAttributeLabels(**labels, *attributes); !st) {
    return fault(path + ".attribute_labels: " + st.error().message);
  }
  out["attribute_labels"] = attributeLabelsToJson(*attributes);
  auto rate = member(doc, "nic_gbps", path);
  if (!rate) return tl::unexpected(rate.error());
  if (!(*rate)->is_null() && !(*rate)->is_number())
    return fault(path + ".nic_gbps: expected a number or null");
  out["nic_gbps"] = **rate;
  auto source = text(doc, "nic_rate_source", path);
  if (!source) return source;
  out["nic_rate_source"] = *source;
  auto inventory = member(doc, "inventory", path);
  if (!inventory) return tl::unexpected(inventory.error());
  if (!(*inventory)->is_object()) return fault(path + ".inventory: expected an object");
  out["inventory"] = **inventory;
  // Optional: a report from before LLDP was read has none.
  if (auto lldp_json = doc.find("lldp"); lldp_json != doc.end()) {
    auto lldp = lldpFromJson(*lldp_json, path + ".lldp");
    if (!lldp) return tl::unexpected(lldp.error());
    out["lldp"] = lldpToJson(*lldp);
  }
  return out;
}

}  // namespace

nlohmann::json makeNodeReport(int rank, const NodeInput& node, const NodeCheck& check) {
  auto attributes = nodeAttributes(node.inventory);
  nlohmann::json counts{{"nics_active", check.counts.nics_active},
                        {"nics_expected", jsonOpt(check.counts.nics_expected)},
                        {"gpus", check.counts.gpus},
                        {"gpus_expected", jsonOpt(check.counts.gpus_expected)}};
  return {{"rank", rank},
          {"host", node.host},
          {"findings", findingsToJson(check.findings)},
          {"counts", counts},
          {"attributes", attributesToJson(attributes)},
          {"attribute_labels", attributeLabelsToJson(attributes)},
          {"nic_gbps", jsonOpt(node.nic_gbps)},
          {"nic_rate_source", node.nic_rate_source},
          {"inventory", model::inventoryToJson(node.inventory)},
          {"lldp", lldpToJson(node.lldp)}};
}

nlohmann::json parseNodeReport(std::string_view blob, int rank) {
  auto doc = nlohmann::json::parse(blob, nullptr, false);
  Checked report = doc.is_discarded()
                       ? fault(fmt::format("rank {} report: not JSON ({} bytes)", rank, blob.size()))
                       : checkedReport(doc, rank);
  if (report) return *report;
  return {{"rank", rank},
          {"host", fmt::format("rank {}", rank)},
          {"report_error", report.error().message + " (a different railkit version on that node?)"},
          {"findings", nlohmann::json::array()},
          {"attributes", nlohmann::json::object()},
          {"attribute_labels", nlohmann::json::object()}};
}

}  // namespace railkit::validate
