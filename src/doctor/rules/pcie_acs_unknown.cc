// pcie-acs-unknown: ACS sits in the extended config space (beyond byte 256),
// which only privileged readers get; a short `config` proves nothing, so the
// doctor says "unknown" instead of staying silent.
#include "doctor/rules/helpers.h"

namespace railkit::doctor {
namespace {

std::vector<Finding> check(const DoctorInput& in) {
  std::vector<Evidence> evidence;
  size_t unknown = 0;
  for (const auto& b : in.inventory.bridges) {
    if (b.acs_known) continue;
    if (++unknown > 4) continue;  // a few examples are proof enough
    evidence.push_back({b.sysfs_path + "/config", std::nullopt,
                        b.config_size == 0 ? "unreadable" : std::to_string(b.config_size) + " bytes"});
  }
  if (unknown == 0) return {};
  if (unknown > evidence.size())
    evidence.push_back({sys::paths::kBusPciDevices, std::nullopt,
                        "and " + std::to_string(unknown - evidence.size()) + " more bridge(s) alike"});
  return {makeFinding(
      kPcieAcsUnknown, "pci bridges",
      "ACS state of " + std::to_string(unknown) +
          " PCIe bridge(s) above GPUs/NICs is unknown: "
          "their config space is shorter than 4096 bytes (not read as root?)",
      std::move(evidence),
      "run railkit doctor (or snapshot) as root on the node, or check `sudo lspci -vvv | grep ACSCtl`")};
}

}  // namespace

extern const Rule kPcieAcsUnknown = {
    {"pcie-acs-unknown", Severity::kInfo, "PCIe ACS state could not be read",
     R"(The ACS control register lives in the PCIe extended configuration space (offset 0x100 and beyond).
The kernel hands unprivileged readers only the first 64 or 256 bytes of sysfs `config`, so from an
ordinary pod or user the doctor cannot tell whether ACS is on, and it says so instead of reporting the
bridges as fine (see pcie-acs-enabled for why ACS matters to GPUDirect RDMA).)",
     R"(Fix: run the check where config space is readable in full:
  sudo railkit doctor                     # on the node
  sudo railkit snapshot --output node.tar.gz   # then railkit doctor --root node.tar.gz anywhere
  sudo lspci -vvv | grep -e '^[0-9a-f]' -e ACSCtl
In Kubernetes, a privileged node-debug pod (kubectl debug node/<node> -it --image=...) sees it.)"},
    check};

}  // namespace railkit::doctor
