// nccl-ib-hca-invalid: NCCL_IB_HCA restricts NCCL to the named RDMA devices
// (and ports). A name that does not exist or a port that is down is silently
// skipped; when nothing usable is left NCCL falls back to TCP sockets.
#include "core/name_list.h"
#include "core/strings.h"
#include "doctor/rules/helpers.h"

namespace railkit::doctor {
namespace {

struct Problem {
  std::string entry;
  std::string what;
  Evidence evidence;
};

std::string entryText(const NameListEntry& e) {
  return e.name + (e.port ? ":" + std::to_string(*e.port) : "");
}

// What is wrong with one listed entry, if anything.
std::optional<Problem> checkEntry(const model::Inventory& inv, const NameListSpec& spec,
                                  const NameListEntry& e) {
  bool device = false, port = false;
  const model::RdmaDevice* down_dev = nullptr;
  const model::RdmaPort* down_port = nullptr;
  for (const auto& d : inv.rdma_devices) {
    if (spec.exact ? d.name != e.name : !startsWith(d.name, e.name)) continue;
    device = true;
    for (const auto& p : d.ports) {
      if (e.port && p.port != *e.port) continue;
      port = true;
      if (portUsable(p)) return std::nullopt;
      down_dev = &d;
      down_port = &p;
    }
  }
  std::string text = entryText(e);
  if (!device)
    return Problem{text,
                   "no RDMA device " + std::string(spec.exact ? "named " : "starting with ") + e.name,
                   {sys::paths::kClassInfiniband, std::nullopt, "no " + e.name}};
  if (!port)
    return Problem{text,
                   e.name + " has no port " + std::to_string(*e.port),
                   {std::string(sys::paths::kClassInfiniband) + "/" + e.name + "/ports", std::nullopt,
                    "no port " + std::to_string(*e.port)}};
  return Problem{text,
                 down_dev->name + ":" + std::to_string(down_port->port) + " is down",
                 {portPath(down_dev->name, down_port->port, "state"), std::nullopt,
                  down_port->state + " / " + down_port->phys_state}};
}

std::vector<Finding> check(const DoctorInput& in) {
  const auto& inv = in.inventory;
  auto value = lookup(inv.process.env, "NCCL_IB_HCA");
  if (!value || inv.rdma_devices.empty()) return {};
  auto spec = parseNameList(*value, /*allow_ports=*/true);
  if (spec.entries.empty()) return {};
  int usable_selected = 0;
  for (const auto& d : inv.rdma_devices)
    for (const auto& p : d.ports)
      if (portUsable(p) && nameListSelects(spec, d.name, p.port)) ++usable_selected;
  std::vector<Problem> problems;
  if (!spec.exclude)
    for (const auto& e : spec.entries)
      if (auto p = checkEntry(inv, spec, e)) problems.push_back(std::move(*p));
  if (problems.empty() && usable_selected > 0) return {};
  std::vector<Evidence> evidence{envEvidence(inv.process.env, "NCCL_IB_HCA")};
  std::vector<std::string> whats;
  for (auto& p : problems) {
    whats.push_back(p.entry + ": " + p.what);
    evidence.push_back(std::move(p.evidence));
  }
  std::string message =
      "NCCL_IB_HCA \"" + *value + "\"" + (whats.empty() ? "" : " names " + joinNames(whats, 4)) +
      (usable_selected == 0 ? "; no usable RDMA port is selected, NCCL falls back to sockets" : "");
  return {makeFinding(
      kNcclIbHcaInvalid, usable_selected == 0 ? Severity::kError : Severity::kWarning, "NCCL_IB_HCA",
      std::move(message), std::move(evidence),
      "list only devices this pod has and whose ports are ACTIVE (see `ibv_devinfo -l`, `ibstat`), "
      "e.g. NCCL_IB_HCA='=mlx5_0:1,mlx5_1:1'")};
}

}  // namespace

extern const Rule kNcclIbHcaInvalid = {
    {"nccl-ib-hca-invalid", Severity::kError, "NCCL_IB_HCA names a missing or down device/port",
     R"(NCCL_IB_HCA selects the RDMA devices NCCL may use: name prefixes ('mlx5' matches all mlx5_*), exact
names with '=' ('=mlx5_0,mlx5_1'), exclusions with '^', and ports with ':' ('mlx5_0:1'). Entries that
match no device, or a port that is not ACTIVE/LinkUp, are skipped without an error; the job then uses
fewer rails than intended (warning), or, when nothing usable is left, NCCL silently uses TCP sockets
at a fraction of the speed (error). Device names differ between nodes and between host and pod
(an SR-IOV pod sees its VF, e.g. mlx5_12, not mlx5_0).)",
     R"(Fix: compare with what the pod sees:
  ibv_devinfo -l; ibstat | grep -e CA -e State
  env:
  - name: NCCL_IB_HCA
    value: "=mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1"
or leave NCCL_IB_HCA unset to let NCCL use every active device; confirm with NCCL_DEBUG=INFO
('NET/IB : Using [0]mlx5_0:1/IB ...').)"},
    check};

}  // namespace railkit::doctor
