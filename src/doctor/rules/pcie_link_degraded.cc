// pcie-link-degraded: a NIC whose PCIe link trained narrower or slower than
// it can (bad riser, wrong slot, dirty contacts) caps RDMA bandwidth below the
// port's line rate. GPUs drop their link speed when idle, so for them only a
// narrower width is a finding.
#include <fmt/core.h>

#include <algorithm>

#include "doctor/rules/helpers.h"

namespace railkit::doctor {
namespace {

// Usable PCIe bandwidth in Gb/s: 8b/10b encoding up to 5 GT/s, 128b/130b above.
double pcieGbps(double gts, int width) {
  return gts * width * (gts > 5.0 ? 128.0 / 130.0 : 0.8);
}

std::string linkText(std::optional<double> speed, std::optional<int> width) {
  return fmt::format("{} GT/s x{}", speed ? fmt::format("{:g}", *speed) : "?",
                     width ? std::to_string(*width) : "?");
}

std::vector<Evidence> linkEvidence(const model::PciFunction& f) {
  std::string base = std::string(sys::paths::kBusPciDevices) + "/" + f.address + "/";
  auto num = [](auto v) { return v ? fmt::format("{:g}", static_cast<double>(*v)) : std::string("?"); };
  return {{base + "current_link_width", std::nullopt, num(f.link.current_width)},
          {base + "max_link_width", std::nullopt, num(f.link.max_width)},
          {base + "current_link_speed", std::nullopt, num(f.link.current_speed_gts) + " GT/s"},
          {base + "max_link_speed", std::nullopt, num(f.link.max_speed_gts) + " GT/s"}};
}

bool narrower(const model::PcieLink& l) {
  return l.current_width && l.max_width && *l.current_width < *l.max_width;
}
bool slower(const model::PcieLink& l) {
  return l.current_speed_gts && l.max_speed_gts && *l.current_speed_gts + 0.01 < *l.max_speed_gts;
}

double fastestPortGbps(const model::RdmaDevice& d) {
  double best = 0;
  for (const auto& p : d.ports) best = std::max(best, p.rate_gbps.value_or(0));
  return best;
}

std::vector<Finding> check(const DoctorInput& in) {
  const auto& inv = in.inventory;
  std::vector<Finding> out;
  for (const auto& d : inv.rdma_devices) {
    if (!d.pci || !d.sriov.physfn.empty()) continue;  // VFs report the PF's link
    const auto& l = d.pci->link;
    if (!narrower(l) && !slower(l)) continue;
    // Error when the trained link cannot carry the port's line rate.
    double port = fastestPortGbps(d);
    bool starved = port > 0 && l.current_speed_gts && l.current_width &&
                   pcieGbps(*l.current_speed_gts, *l.current_width) < port;
    out.push_back(makeFinding(
        kPcieLinkDegraded, starved ? Severity::kError : Severity::kWarning, d.name,
        "PCIe link of " + d.name + " (" + d.pci->address + ") runs at " +
            linkText(l.current_speed_gts, l.current_width) + ", below its maximum " +
            linkText(l.max_speed_gts, l.max_width) +
            (starved ? fmt::format(": about {:.0f} Gb/s, less than the port's {:g} Gb/s",
                                   pcieGbps(*l.current_speed_gts, *l.current_width), port)
                     : std::string()),
        linkEvidence(*d.pci),
        "reseat the NIC or move it to a full x" +
            (l.max_width ? std::to_string(*l.max_width) : std::string("16")) + " slot; check `lspci -vv -s " +
            d.pci->address + " | grep LnkSta` and the BIOS slot settings"));
  }
  for (const auto& g : inv.gpus) {
    const auto& l = g.pci.link;
    if (!narrower(l)) continue;
    out.push_back(makeFinding(
        kPcieLinkDegraded, Severity::kWarning, g.name,
        "PCIe link of " + g.name + " (" + g.pci.address + ") is x" + std::to_string(*l.current_width) +
            ", narrower than its maximum x" + std::to_string(*l.max_width),
        linkEvidence(g.pci),
        "reseat the GPU/riser; `nvidia-smi -q | grep -A3 'Link Width'` shows current and max width"));
  }
  return out;
}

}  // namespace

extern const Rule kPcieLinkDegraded = {
    {"pcie-link-degraded", Severity::kError, "A NIC or GPU trained its PCIe link below its maximum",
     R"(A 400 Gb/s NIC needs a PCIe Gen5 x16 (or Gen4 x16 for 200 Gb/s) link. When a link trains narrower (x8
instead of x16) or slower (Gen3 instead of Gen5) because of a bad riser, a wrong slot, dirty contacts or
a BIOS bifurcation setting, RDMA bandwidth is capped below the port's line rate and nccl-tests show a
fraction of the expected busbw on that rail. Error when the link cannot carry the port's rate, warning
otherwise. GPUs lower their link speed when idle to save power, so for GPUs only the width counts.)",
     R"(Fix:
  lspci -vv -s <bdf> | grep -e LnkCap -e LnkSta   # 'Speed 32GT/s, Width x16' expected in LnkSta
  mlxlink -d <bdf> --port_type PCIE               # Mellanox/NVIDIA NICs
then reseat the card or riser, use a slot wired x16, check BIOS PCIe bifurcation/generation settings,
and reboot (a link retrains only on reset).)"},
    check};

}  // namespace railkit::doctor
