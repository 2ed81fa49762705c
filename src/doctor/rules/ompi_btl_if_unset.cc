// ompi-btl-if-unset: with several interfaces OpenMPI's TCP BTL (and its
// out-of-band wire-up) may pick the RDMA secondary network, which has no
// route to the other pods' control addresses and no cluster DNS.
#include "core/shared_rules.h"
#include "doctor/rules/helpers.h"

namespace railkit::doctor {
namespace {

std::vector<Finding> check(const DoctorInput& in) {
  const auto& inv = in.inventory;
  const auto& env = inv.process.env;
  if (!ompiInUse(env)) return {};
  if (lookup(env, "OMPI_MCA_btl_tcp_if_include") || lookup(env, "OMPI_MCA_btl_tcp_if_exclude")) return {};
  std::vector<std::string> names;
  for (const auto& n : inv.interfaces)
    if (n.name != "lo" && n.type != "loopback") names.push_back(n.name);
  if (names.size() < 2) return {};
  std::string first_ompi;
  for (const auto& [k, v] : env)
    if (k.rfind("OMPI_", 0) == 0) {
      first_ompi = k + "=" + v;
      break;
    }
  return {makeFinding(kOmpiBtlIfUnset, "OMPI_MCA_btl_tcp_if_include",
                      "OpenMPI is in use and " + std::to_string(names.size()) + " interfaces exist (" +
                          joinNames(names) + ") but neither OMPI_MCA_btl_tcp_if_include nor _exclude is set",
                      {{sys::paths::kSelfEnviron, std::nullopt, first_ompi},
                       envEvidence(env, "OMPI_MCA_btl_tcp_if_include"),
                       envEvidence(env, "OMPI_MCA_btl_tcp_if_exclude"),
                       {sys::paths::kClassNet, std::nullopt, joinNames(names, 16)}},
                      "export OMPI_MCA_btl_tcp_if_include=eth0 (and OMPI_MCA_oob_tcp_if_include=eth0) on the "
                      "launcher and every worker")};
}

}  // namespace

extern const Rule kOmpiBtlIfUnset = {shared_rules::kOmpiBtlIfUnset, check};

}  // namespace railkit::doctor
