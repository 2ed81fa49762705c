// Phase 1: the node's own doctor findings plus the two counts the cluster's
// profile fixes (active data-rail ports, GPUs). The data rails are selected
// with the same NCCL_IB_HCA syntax and parser doctor and bench use, so
// "which ports count" means exactly what NCCL will use.
#include "validate/node_check.h"

#include <algorithm>
#include <cstdlib>

#include "core/name_list.h"
#include "core/strings.h"
#include "doctor/rule.h"
#include "doctor/rules/helpers.h"
#include "sys/paths.h"
#include "validate/rules.h"

namespace railkit::validate {
namespace {

std::string portName(const std::string& device, int port) {
  return device + "/" + std::to_string(port);
}

std::string stateText(const model::RdmaPort& p) {
  std::string state = p.state.empty() ? "in an unreadable state" : p.state;
  return p.phys_state.empty() ? state : state + " (" + p.phys_state + ")";
}

bool entryMatches(const NameListSpec& spec, const NameListEntry& e, const std::string& device) {
  return spec.exact ? device == e.name : startsWith(device, e.name);
}

// Entries of an inclusive data-rail list that select nothing on this node:
// the node lacks the device (or its port), which is the "what is missing"
// a count alone cannot show.
void listMissingEntries(const model::Inventory& inv, const NameListSpec& spec, NodeCounts& counts) {
  if (spec.exclude) return;
  for (const auto& e : spec.entries) {
    bool device = false, port = false;
    for (const auto& d : inv.rdma_devices) {
      if (!entryMatches(spec, e, d.name)) continue;
      device = true;
      for (const auto& p : d.ports) port = port || !e.port || p.port == *e.port;
    }
    if (!device)
      counts.nics_inactive.push_back(e.name + " is not present");
    else if (!port)
      counts.nics_inactive.push_back(portName(e.name, *e.port) + " is not present");
  }
}

// Evidence for one nics_inactive line ("mlx5_3/1 is DOWN (Disabled)" or
// "mlx5_7 is not present"): the port's state file, or the device class.
Evidence inactiveEvidence(const std::string& line) {
  std::string name = line.substr(0, line.find(' '));
  std::string rest = line.size() > name.size() + 4 ? line.substr(name.size() + 4) : line;
  auto slash = name.find('/');
  if (slash == std::string::npos) return {sys::paths::kClassInfiniband, std::nullopt, "no " + name};
  std::string device = name.substr(0, slash);
  int port = std::atoi(name.c_str() + slash + 1);
  if (rest == "not present")
    return {std::string(sys::paths::kClassInfiniband) + "/" + device + "/ports", std::nullopt,
            "no port " + std::to_string(port)};
  return {doctor::portPath(device, port, "state"), std::nullopt, rest};
}

std::string listOrNone(const std::vector<std::string>& names) {
  return names.empty() ? "none" : doctor::joinNames(names, 16);
}

Finding nicFinding(const NodeCounts& c) {
  int expected = *c.nics_expected;
  if (c.nics_active > expected) {
    return doctor::makeFinding(
        kRdmaNicCount, Severity::kInfo, "node",
        std::to_string(c.nics_active) + " active RDMA ports on the data rails, " + std::to_string(expected) +
            " expected: " + listOrNone(c.nics_active_ports),
        {}, "raise --expect-nics (the profile's NIC count) if the extra ports are meant to carry traffic");
  }
  std::string message = std::to_string(c.nics_active) + " of " + std::to_string(expected) +
                        " expected active RDMA ports on the data rails";
  if (!c.nics_inactive.empty()) message += ": " + doctor::joinNames(c.nics_inactive, 8);
  message += "; active: " + listOrNone(c.nics_active_ports);
  std::vector<Evidence> evidence;
  for (const auto& line : c.nics_inactive) evidence.push_back(inactiveEvidence(line));
  if (evidence.empty())
    evidence.push_back({sys::paths::kClassInfiniband, std::nullopt, listOrNone(c.nics_active_ports)});
  return doctor::makeFinding(
      kRdmaNicCount, "node", std::move(message), std::move(evidence),
      "bring the named ports up: check the cable, transceiver and switch port (ibstat; mlxlink -d <dev> "
      "-p <port>; the switch's port state), a device that is missing (lspci | grep -i mellanox; dmesg | "
      "grep mlx5), or correct --expect-nics / the data-rail list if the profile is wrong");
}

Finding gpuFinding(const NodeCounts& c) {
  int expected = *c.gpus_expected;
  std::string present = listOrNone(c.gpus_present);
  Evidence evidence{sys::paths::kBusPciDevices, std::nullopt, std::to_string(c.gpus) + " GPUs: " + present};
  if (c.gpus > expected) {
    return doctor::makeFinding(
        kGpuCount, Severity::kInfo, "node",
        std::to_string(c.gpus) + " GPUs, " + std::to_string(expected) + " expected: " + present,
        {std::move(evidence)}, "raise --expect-gpus (the profile's GPU count)");
  }
  return doctor::makeFinding(
      kGpuCount, "node",
      std::to_string(c.gpus) + " of " + std::to_string(expected) +
          " expected GPUs are visible; present: " + present,
      {std::move(evidence)},
      "find the missing GPU: nvidia-smi -L; dmesg | grep -i -e xid -e 'fallen off the bus'; lspci -d 10de:; "
      "a GPU that fell off the bus needs a reset or a reboot, a pod may be allotted fewer GPUs than "
      "the node has (resources.limits nvidia.com/gpu); or correct --expect-gpus");
}

}  // namespace

NodeCounts countNode(const model::Inventory& inventory, const NodeExpectations& expect) {
  NodeCounts counts;
  counts.nics_expected = expect.nics;
  counts.gpus_expected = expect.gpus;
  auto spec = parseNameList(expect.hca_spec, /*allow_ports=*/true);
  bool filter = !spec.entries.empty();
  for (const auto& d : inventory.rdma_devices) {
    for (const auto& p : d.ports) {
      if (filter && !nameListSelects(spec, d.name, p.port)) continue;
      if (model::portActive(p)) {
        ++counts.nics_active;
        counts.nics_active_ports.push_back(portName(d.name, p.port));
      } else {
        counts.nics_inactive.push_back(portName(d.name, p.port) + " is " + stateText(p));
      }
    }
  }
  if (filter) listMissingEntries(inventory, spec, counts);
  counts.gpus = static_cast<int>(inventory.gpus.size());
  for (const auto& g : inventory.gpus) counts.gpus_present.push_back(g.name + " (" + g.pci.address + ")");
  return counts;
}

std::vector<Finding> countFindings(const NodeCounts& counts) {
  std::vector<Finding> out;
  if (counts.nics_expected && counts.nics_active != *counts.nics_expected) out.push_back(nicFinding(counts));
  if (counts.gpus_expected && counts.gpus != *counts.gpus_expected) out.push_back(gpuFinding(counts));
  return out;
}

NodeCheck checkNode(const model::Inventory& inventory, const NodeExpectations& expect) {
  NodeCheck check;
  check.counts = countNode(inventory, expect);
  check.findings = doctor::runRules(doctor::DoctorInput{inventory});
  auto counted = countFindings(check.counts);
  check.findings.insert(check.findings.end(), counted.begin(), counted.end());
  // Doctor's findings come sorted by severity; a stable sort keeps doctor's
  // order and puts a count error among the errors, an info among the infos.
  std::stable_sort(check.findings.begin(), check.findings.end(),
                   [](const Finding& a, const Finding& b) { return a.severity < b.severity; });
  return check;
}

}  // namespace railkit::validate
