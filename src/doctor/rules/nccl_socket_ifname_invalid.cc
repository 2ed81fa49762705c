// nccl-socket-ifname-invalid: NCCL bootstraps (and, without RDMA, moves all
// data) over the interfaces NCCL_SOCKET_IFNAME selects. When it selects no
// interface that is up, ncclCommInitRank fails with "no socket interface found".
#include <algorithm>

#include "core/name_list.h"
#include "doctor/rules/helpers.h"

namespace railkit::doctor {
namespace {

bool up(const model::NetInterface& n) {
  return n.operstate == "up" || n.operstate == "unknown";
}

std::vector<Finding> check(const DoctorInput& in) {
  const auto& inv = in.inventory;
  auto value = lookup(inv.process.env, "NCCL_SOCKET_IFNAME");
  if (!value || inv.interfaces.empty()) return {};
  auto spec = parseNameList(*value);
  std::vector<std::string> selected_down;
  for (const auto& n : inv.interfaces) {
    if (!nameListSelects(spec, n.name)) continue;
    if (up(n)) return {};
    selected_down.push_back(n.name);
  }
  std::vector<Evidence> evidence{envEvidence(inv.process.env, "NCCL_SOCKET_IFNAME")};
  std::vector<std::string> all;
  for (const auto& n : inv.interfaces) {
    all.push_back(n.name + " (" + (n.operstate.empty() ? "?" : n.operstate) + ")");
    if (std::find(selected_down.begin(), selected_down.end(), n.name) != selected_down.end())
      evidence.push_back({netPath(n.name, "operstate"), std::nullopt, n.operstate});
  }
  evidence.push_back({sys::paths::kClassNet, std::nullopt, joinNames(all, 16)});
  std::string message =
      "NCCL_SOCKET_IFNAME \"" + *value + "\"" +
      (selected_down.empty() ? " matches no interface"
                             : " matches only interfaces that are down: " + joinNames(selected_down));
  return {makeFinding(
      kNcclSocketIfnameInvalid, "NCCL_SOCKET_IFNAME", std::move(message), std::move(evidence),
      "set NCCL_SOCKET_IFNAME to an interface of this pod that is up (e.g. eth0 for the pod network, "
      "=net1 for exactly net1)")};
}

}  // namespace

extern const Rule kNcclSocketIfnameInvalid = {
    {"nccl-socket-ifname-invalid", Severity::kError, "NCCL_SOCKET_IFNAME selects no interface that is up",
     R"(NCCL opens its bootstrap sockets (and, when it falls back from RDMA, all its data sockets) on the
interfaces NCCL_SOCKET_IFNAME selects. The value is a comma list of name prefixes ('eth' matches eth0,
eth1); '=' makes the names exact ('=eth0'), '^' excludes them ('^docker,lo'). If nothing that is up
matches, every rank fails at init with 'Bootstrap : no socket interface found' or hangs. Interface names
differ between nodes and pods (net1 exists only when the Multus network is attached).)",
     R"(Fix: list what the pod has with `ip -br link` (or `ls /sys/class/net`) and set, for example,
  env:
  - name: NCCL_SOCKET_IFNAME
    value: eth0        # pod network for bootstrap; data goes over IB/RoCE
or `=net1` to pin exactly the secondary interface. Make sure the same names exist on every node.)"},
    check};

}  // namespace railkit::doctor
