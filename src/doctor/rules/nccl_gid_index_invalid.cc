// nccl-gid-index-invalid: NCCL_IB_GID_INDEX fixes which GID table entry NCCL
// uses as its address. An empty entry fails every connection; on RoCE a RoCE
// v1 (or link-local only) entry does not route across subnets.
#include <fmt/core.h>

#include "core/name_list.h"
#include "core/strings.h"
#include "doctor/rules/helpers.h"

namespace railkit::doctor {
namespace {

// A RoCE v2 GID with an IPv4-mapped address, preferred; else any RoCE v2 one.
std::optional<int> suggestedIndex(const model::RdmaPort& p) {
  std::optional<int> any;
  for (const auto& g : p.gids) {
    if (g.type != "RoCE v2") continue;
    if (startsWith(g.gid, "0000:0000:0000:0000:0000:ffff:")) return g.index;
    if (!any) any = g.index;
  }
  return any;
}

std::vector<Finding> check(const DoctorInput& in) {
  const auto& inv = in.inventory;
  const auto& env = inv.process.env;
  auto value = lookup(env, "NCCL_IB_GID_INDEX");
  if (!value || inv.rdma_devices.empty()) return {};
  std::string text(trim(*value));
  int index = 0;
  bool negative = startsWith(text, "-");
  auto parsed = parseUint(negative ? std::string_view(text).substr(1) : std::string_view(text));
  if (!parsed || *parsed > 255)
    return {makeFinding(kNcclGidIndexInvalid, "NCCL_IB_GID_INDEX",
                        "NCCL_IB_GID_INDEX=" + *value + " is not a GID table index (0..255)",
                        {envEvidence(env, "NCCL_IB_GID_INDEX")},
                        "set NCCL_IB_GID_INDEX to a number, or unset it")};
  if (negative) return {};  // -1: NCCL picks the GID itself (2.21+)
  index = static_cast<int>(*parsed);
  auto selected = ncclPorts(inv);
  std::vector<Evidence> evidence{envEvidence(env, "NCCL_IB_GID_INDEX")};
  std::vector<std::string> empty, wrong_type, hints;
  for (const auto& [dev, port] : selected.ports) {
    const auto& d = *dev;
    const auto& p = *port;
    std::string subject = d.name + ":" + std::to_string(p.port);
    const model::Gid* gid = nullptr;
    for (const auto& g : p.gids)
      if (g.index == index) gid = &g;
    bool roce = p.link_layer == "Ethernet";
    if (!gid) {
      empty.push_back(subject);
      evidence.push_back({portPath(d.name, p.port, "gids/" + std::to_string(index)), std::nullopt, "empty"});
    } else if (roce && !gid->type.empty() && gid->type != "RoCE v2") {
      wrong_type.push_back(subject);
      evidence.push_back(
          {portPath(d.name, p.port, "gid_attrs/types/" + std::to_string(index)), std::nullopt, gid->type});
    } else {
      continue;
    }
    if (auto s = roce ? suggestedIndex(p) : std::optional<int>(p.gids.empty() ? 0 : p.gids.front().index))
      hints.push_back(fmt::format("{}: GID {}", subject, *s));
  }
  if (empty.empty() && wrong_type.empty()) return {};
  if (selected.hca_selects_none) evidence.push_back(envEvidence(env, "NCCL_IB_HCA"));
  std::string message = "NCCL_IB_GID_INDEX=" + text + " points at";
  if (!empty.empty()) message += " an empty GID on " + joinNames(empty, 4);
  if (!wrong_type.empty())
    message += std::string(empty.empty() ? "" : " and") + " a GID that is not RoCE v2 on " +
               joinNames(wrong_type, 4);
  if (selected.hca_selects_none)
    message +=
        " (NCCL_IB_HCA selects no usable port, so every usable port was checked: these are the "
        "ports a corrected NCCL_IB_HCA would select)";
  return {makeFinding(kNcclGidIndexInvalid, empty.empty() ? Severity::kWarning : Severity::kError,
                      "NCCL_IB_GID_INDEX", std::move(message), std::move(evidence),
                      hints.empty()
                          ? std::string("unset NCCL_IB_GID_INDEX or point it at a populated RoCE v2 GID")
                          : "use a populated RoCE v2 GID (" + joinNames(hints, 4) + ")")};
}

}  // namespace

extern const Rule kNcclGidIndexInvalid = {
    {"nccl-gid-index-invalid", Severity::kError, "NCCL_IB_GID_INDEX points at an empty or non-RoCE-v2 GID",
     R"(On RoCE the GID is the port's network address (derived from the netdev's MAC or IP addresses) and
NCCL_IB_GID_INDEX picks which entry of the port's GID table NCCL uses. An empty entry (no IP on the
interface, or the index belongs to another netdev) makes every connection fail ('NET/IB : ... failed
to modify QP to RTR'); a RoCE v1 entry works only inside one L2 domain and is dropped by routed
(L3) fabrics and by peers that use v2. The usual layout is 0/1 = link-local v1/v2, 2/3 = IPv4 v1/v2,
but it differs per node and per pod, so check instead of assuming 3.)",
     R"(Fix:
  show_gids                     # or: grep . /sys/class/infiniband/*/ports/1/gid_attrs/types/*
  env:
  - name: NCCL_IB_GID_INDEX
    value: "3"                   # the RoCE v2 entry with the IPv4 address
With NCCL 2.21 or newer you may leave it unset (NCCL then picks a RoCE v2 GID, see NCCL_IB_ROCE_VERSION_NUM
and NCCL_IB_ADDR_FAMILY). Make sure the interface has its IP address before the job starts.)"},
    check};

}  // namespace railkit::doctor
