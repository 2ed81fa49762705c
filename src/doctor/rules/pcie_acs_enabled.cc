// pcie-acs-enabled: ACS request redirect on a PCIe switch port sends every
// peer-to-peer request (NIC reading GPU memory) up to the root complex, where
// the IOMMU may drop it: GPUDirect RDMA slows down or hangs.
#include <fmt/core.h>

#include "doctor/rules/helpers.h"

namespace railkit::doctor {
namespace {

// Names of the GPUs and RDMA NICs below a bridge, e.g. "gpu0, mlx5_0".
std::vector<std::string> devicesBelow(const model::Inventory& inv, const std::string& bridge) {
  std::vector<std::string> names;
  auto below = [&](const model::PciFunction& f) {
    for (const auto& b : f.upstream_bridges)
      if (b == bridge) return true;
    return false;
  };
  for (const auto& g : inv.gpus)
    if (below(g.pci)) names.push_back(g.name);
  for (const auto& d : inv.rdma_devices)
    if (d.pci && below(*d.pci)) names.push_back(d.name);
  return names;
}

std::vector<Finding> check(const DoctorInput& in) {
  const auto& inv = in.inventory;
  std::vector<Finding> out;
  for (const auto& b : inv.bridges) {
    if (!b.acs_known || !b.acs_capable || (!b.request_redirect && !b.source_validation)) continue;
    std::string bits = std::string(b.source_validation ? "SrcValid+" : "SrcValid-") +
                       (b.request_redirect ? " ReqRedir+" : " ReqRedir-");
    auto below = devicesBelow(inv, b.address);
    out.push_back(makeFinding(
        kPcieAcsEnabled, b.request_redirect ? Severity::kError : Severity::kWarning, b.address,
        "ACS is enabled on PCIe bridge " + b.address + " (" + bits + ") above " +
            (below.empty() ? std::string("a GPU or NIC") : joinNames(below)) +
            (b.request_redirect ? ": peer-to-peer traffic is redirected through the root complex"
                                : ": source validation is on"),
        {{b.sysfs_path + "/config", std::nullopt, fmt::format("ACSCtl 0x{:04x}: {}", b.acs_control, bits)}},
        "disable ACS: BIOS (PCIe ACS / IO virtualization off) or at boot `setpci -s " + b.address +
            " ECAP_ACS+0x6.w=0000`"));
  }
  return out;
}

}  // namespace

extern const Rule kPcieAcsEnabled = {
    {"pcie-acs-enabled", Severity::kError, "PCIe ACS is enabled on a bridge above a GPU or NIC",
     R"(Access Control Services on a PCIe switch port can force requests between devices under the same switch
(request redirect) up to the root complex and check their source (source validation). GPUDirect RDMA is
exactly such traffic: the NIC reads and writes GPU memory. With ACS redirect it crosses the root
complex (often at a fraction of the bandwidth) or is blocked by the IOMMU, and NCCL hangs or reports
errors under load. Error when request redirect is on, warning for source validation alone.)",
     R"(Fix: check with `lspci -vvv | grep ACSCtl` (look for SrcValid+ / ReqRedir+). Disable ACS in the BIOS
(often 'PCIe ACS' or 'IO virtualization'/VT-d), or clear the control register on every bridge at each
boot (it is not persistent):
  for bdf in $(lspci -d ::0604 | awk '{print $1}'); do
    setpci -s $bdf ECAP_ACS+0x6.w=0000 2>/dev/null
  done
Keep ACS on only where VMs need device isolation (then use ATS/the IOMMU in passthrough mode instead).)"},
    check};

}  // namespace railkit::doctor
