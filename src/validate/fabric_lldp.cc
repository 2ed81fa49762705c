#include "validate/fabric_lldp.h"

#include <fmt/format.h>

#include <map>

#include "core/name_list.h"
#include "fabric/report.h"
#include "validate/node_lldp.h"

namespace railkit::validate {
namespace {

constexpr std::size_t kNamedNodes = 8;    // in a note, past that "and N more"
constexpr std::size_t kNamedReasons = 3;  // in a note, past that how many more

struct LldpNodes {
  std::vector<fabric::LldpCapture> captures;  // of the nodes that heard a neighbour
  std::vector<std::string> with;              // their labels
  nlohmann::json without = nlohmann::json::array();
  std::map<std::string, std::vector<std::string>> why;  // reason -> labels, for the note
};

// The node as the fabric names its ports, "<host> <device>": one word, so
// "node1 (r0)" (hosts repeating) is "node1(r0)".
std::string fabricHost(const std::string& label) {
  std::string host;
  for (char c : label)
    if (c != ' ') host += c;
  return host;
}

LldpNodes collectLldp(const std::vector<nlohmann::json>& reports, const std::vector<std::string>& labels) {
  LldpNodes nodes;
  for (std::size_t i = 0; i < reports.size() && i < labels.size(); ++i) {
    std::string why;
    auto member = reports[i].find("lldp");
    if (member == reports[i].end()) {
      why = reports[i].contains("report_error") ? "its report was not read"
                                                : "its report has no LLDP (an older railkit)";
    } else if (auto lldp = lldpFromJson(*member, "lldp"); !lldp) {
      why = lldp.error().message;
    } else if (!lldp->read) {
      why = lldp->unavailable;
    } else if (lldp->neighbors.empty()) {
      why =
          fmt::format("'{}' shows no neighbour (lldpd on the switches off, or not yet heard)", lldp->command);
    } else {
      nodes.captures.push_back(fabric::LldpCapture{fmt::format("{} ({})", labels[i], lldp->command),
                                                   fabricHost(labels[i]), std::move(lldp->neighbors)});
      nodes.with.push_back(labels[i]);
      continue;
    }
    nodes.without.push_back({{"node", labels[i]}, {"why", why}});
    // --lldpctl '' is asked for, not worth a note.
    if (member == reports[i].end() || !member->is_object() || member->value("command", std::string()) != "")
      nodes.why[why].push_back(labels[i]);
  }
  return nodes;
}

std::string namedNodes(const std::vector<std::string>& labels) {
  std::string out;
  for (std::size_t i = 0; i < labels.size() && i < kNamedNodes; ++i) out += (i ? ", " : "") + labels[i];
  if (labels.size() > kNamedNodes) out += fmt::format(" and {} more", labels.size() - kNamedNodes);
  return out;
}

// One line: the nodes without LLDP, grouped by why.
std::string withoutNote(const LldpNodes& nodes, std::size_t total) {
  std::string groups;
  std::size_t shown = 0;
  for (const auto& [why, labels] : nodes.why) {
    if (shown++ == kNamedReasons) {
      groups += fmt::format("; {} other reason(s): fabric.nodes_without_lldp in the JSON",
                            nodes.why.size() - kNamedReasons);
      break;
    }
    groups += fmt::format("{}{}: {}", groups.empty() ? "" : "; ", namedNodes(labels), why);
  }
  std::size_t missing = total - nodes.with.size();
  if (nodes.with.size() < 2)
    return fmt::format(
        "fabric: not checked, it needs LLDP neighbours from 2 nodes and {} of {} sent them ({})",
        nodes.with.size(), total, groups);
  return fmt::format("fabric: no LLDP from {} of {} node(s) ({})", missing, total, groups);
}

}  // namespace

std::vector<std::string> lldpRails(const std::vector<fabric::LldpCapture>& captures,
                                   const std::string& hca_spec) {
  // lldpInterfaces sorts names naturally; given captures whose interfaces
  // are the devices, it sorts the devices.
  std::vector<fabric::LldpCapture> devices;
  for (const auto& c : captures) {
    fabric::LldpCapture d{c.source, c.host, {}};
    for (const auto& n : c.neighbors) {
      if (n.device.empty()) continue;
      d.neighbors.push_back(n);
      d.neighbors.back().interface = n.device;
    }
    devices.push_back(std::move(d));
  }
  std::vector<std::string> rails = fabric::lldpInterfaces(devices);
  if (rails.empty()) return fabric::lldpInterfaces(captures);
  auto spec = parseNameList(hca_spec, /*allow_ports=*/true);
  if (spec.entries.empty()) return rails;
  std::vector<std::string> selected;
  for (const auto& r : rails)
    if (nameListSelects(spec, r)) selected.push_back(r);
  return selected;
}

LldpFabricCheck checkLldpFabric(const std::vector<nlohmann::json>& reports,
                                const std::vector<std::string>& labels, const std::string& hca_spec) {
  LldpFabricCheck check;
  LldpNodes nodes = collectLldp(reports, labels);
  if (!nodes.why.empty()) check.notes.push_back(withoutNote(nodes, reports.size()));
  if (nodes.with.size() < 2) return check;
  std::vector<std::string> rails = lldpRails(nodes.captures, hca_spec);
  fabric::Fabric built = fabric::lldpFabric(nodes.captures, rails, "lldp");
  fabric::FabricReport report = fabric::analyseFabric(built, {}, {}, nullptr, nullptr, &rails);
  check.section = fabric::fabricDocument(report);
  check.section["nodes_with_lldp"] = nodes.with;
  check.section["nodes_without_lldp"] = nodes.without;
  for (const auto& f : report.findings) {
    if (f.severity != Severity::kError) continue;
    check.failures.push_back(fmt::format("fabric: [{}] {}: {}", f.id, f.subject, f.message));
  }
  check.summary = fmt::format(
      "fabric from LLDP of {} node(s): {} leaf switch(es), {} rail(s), {} error(s), {} warning(s)",
      nodes.with.size(), report.leaves, report.rails, report.errors, report.warnings);
  return check;
}

}  // namespace railkit::validate
