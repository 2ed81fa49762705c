#pragma once
// Small helpers shared by rule files: building findings and evidence, and the
// facts several rules look at (module loaded, RDMA present, usable ports).

#include <optional>
#include <string>
#include <vector>

#include "core/name_list.h"
#include "doctor/rule.h"
#include "sys/paths.h"

namespace railkit::doctor {

// A finding of `rule` with its declared severity, or (second form) one the
// check lowered for this case.
inline Finding makeFinding(const RuleInfo& rule, Severity lowered, std::string subject, std::string message,
                           std::vector<Evidence> evidence, std::string fix) {
  Finding f = findingOf(rule, lowered);
  f.subject = std::move(subject);
  f.message = std::move(message);
  f.evidence = std::move(evidence);
  f.fix = std::move(fix);
  return f;
}

inline Finding makeFinding(const RuleInfo& rule, std::string subject, std::string message,
                           std::vector<Evidence> evidence, std::string fix) {
  return makeFinding(rule, rule.severity, std::move(subject), std::move(message), std::move(evidence),
                     std::move(fix));
}

// RLIMIT_MEMLOCK unlimited in effect: the word, a value near 2^64, or one at
// or above all the memory the machine has (nothing more could be pinned
// anyway). memlock-limit reports what is not; ipc-lock-missing lowers its
// severity where it is, as lint does for platforms that give unlimited memlock.
inline bool memlockUnlimitedInEffect(const model::ProcessFacts& p) {
  // Runtimes write "unlimited" as 2^64 - 1 minus some rounding
  // (18446744073708503040 = 2^64 - 1 MiB in a real /proc/PID/limits), and no
  // machine has 2^63 bytes to pin.
  constexpr uint64_t kNearTwoTo64 = 1ull << 63;
  const auto& m = p.memlock;
  return m.known &&
         (m.unlimited || m.bytes >= kNearTwoTo64 || (p.mem_total_bytes && m.bytes >= *p.mem_total_bytes));
}

// CAP_IPC_LOCK in the effective set (bit 14 of CapEff).
inline bool hasCapIpcLock(const model::ProcessFacts& p) {
  constexpr int kCapIpcLock = 14;
  return p.cap_eff && ((*p.cap_eff >> kCapIpcLock) & 1);
}

inline bool moduleLoaded(const model::Inventory& inv, const std::string& name) {
  for (const auto& m : inv.modules)
    if (m.name == name) return m.loaded;
  return false;
}

inline std::string portPath(const std::string& dev, int port, const std::string& file) {
  return std::string(sys::paths::kClassInfiniband) + "/" + dev + "/ports/" + std::to_string(port) + "/" +
         file;
}

inline std::string netPath(const std::string& netdev, const std::string& file) {
  return std::string(sys::paths::kClassNet) + "/" + netdev + "/" + file;
}

// A port that carries traffic (model/inventory.h): the one definition env shares.
using model::portUsable;

// The usable ports NCCL will use: those NCCL_IB_HCA selects. When the list
// selects none (nccl-ib-hca-invalid reports that), every usable port: the
// user's fix is to correct the list, and the per-port settings must be
// checked against what it will then select, so that every problem shows in
// one run instead of appearing one after another as each is fixed.
struct NcclPorts {
  std::vector<std::pair<const model::RdmaDevice*, const model::RdmaPort*>> ports;
  bool hca_selects_none = false;  // NCCL_IB_HCA given, no usable port selected
};

inline NcclPorts ncclPorts(const model::Inventory& inv) {
  NcclPorts out;
  auto hca = lookup(inv.process.env, "NCCL_IB_HCA");
  auto spec = parseNameList(hca.value_or(""), /*allow_ports=*/true);
  bool filter = hca && !spec.entries.empty();
  for (int pass = 0; pass < 2 && out.ports.empty(); ++pass) {
    for (const auto& d : inv.rdma_devices)
      for (const auto& p : d.ports)
        if (portUsable(p) && (pass == 1 || !filter || nameListSelects(spec, d.name, p.port)))
          out.ports.push_back({&d, &p});
    if (pass == 0 && out.ports.empty()) out.hca_selects_none = filter;
    if (!filter) break;
  }
  return out;
}

inline const model::NetInterface* findInterface(const model::Inventory& inv, const std::string& name) {
  for (const auto& n : inv.interfaces)
    if (n.name == name) return &n;
  return nullptr;
}

// Evidence for one environment variable (or its absence).
inline Evidence envEvidence(const Environment& env, const std::string& key) {
  auto value = lookup(env, key);
  return {sys::paths::kSelfEnviron, std::nullopt, value ? key + "=" + *value : key + " unset"};
}

inline bool ompiInUse(const Environment& env) {
  for (const auto& [k, v] : env)
    if (k.rfind("OMPI_", 0) == 0) return true;
  return false;
}

// "a, b, c" (at most `limit` items, then "and N more").
inline std::string joinNames(const std::vector<std::string>& names, size_t limit = 8) {
  std::string out;
  for (size_t i = 0; i < names.size() && i < limit; ++i) out += (i ? ", " : "") + names[i];
  if (names.size() > limit) out += " and " + std::to_string(names.size() - limit) + " more";
  return out;
}

}  // namespace railkit::doctor
