// railkit inspect [--root DIR|FILE.tar.gz] [--json] [--hwloc-xml FILE]:
// what this node or pod can see for RDMA, like ibstat + ibdev2netdev +
// nvidia-smi topo -m in one view.
#include <fmt/core.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/read_root.h"
#include "core/interrupt.h"
#include "model/collect.h"
#include "model/root_source.h"
#include "sys/paths.h"

namespace railkit::cli {

namespace {

struct InspectOptions {
  std::string root;
  std::string hwloc_xml;
  OutputOptions output;
};

std::string orDash(const std::string& s) {
  return s.empty() ? "-" : s;
}

void printHuman(const model::Inventory& inv) {
  fmt::print("root: {}\n\nRDMA devices ({}):\n", inv.root, inv.rdma_devices.size());
  for (const auto& d : inv.rdma_devices) {
    std::string pci = d.pci ? d.pci->address : "-";
    std::string numa = d.pci && d.pci->numa_node ? std::to_string(*d.pci->numa_node) : "-";
    for (const auto& p : d.ports) {
      std::string rate = p.rate_gbps ? fmt::format("{:g} Gb/s", *p.rate_gbps) : "-";
      fmt::print("  {:<12} port {} ==> {:<12} {:<7} {:<8} {:<11} {:<10} pci {} numa {}\n", d.name, p.port,
                 orDash(p.netdev), orDash(p.state), orDash(p.phys_state), orDash(p.link_layer), rate, pci,
                 numa);
    }
    if (d.ports.empty()) fmt::print("  {:<12} (no ports) pci {} numa {}\n", d.name, pci, numa);
    if (d.sriov.num_vfs && *d.sriov.num_vfs > 0)
      fmt::print("  {:<12} SR-IOV: {} of {} VFs\n", "", *d.sriov.num_vfs, d.sriov.total_vfs.value_or(0));
  }
  fmt::print("\nGPUs ({}):\n", inv.gpus.size());
  for (const auto& g : inv.gpus)
    fmt::print("  {:<5} {} {} numa {} {}\n", g.name, g.pci.address, g.vendor_name,
               g.pci.numa_node ? std::to_string(*g.pci.numa_node) : "-", g.model);
  if (!inv.gpus.empty() && !inv.rdma_devices.empty()) {
    fmt::print("\nGPU/NIC distance ({}):\n{:<7}", inv.topology.source, "");
    std::vector<std::string> nics;
    for (const auto& d : inv.rdma_devices)
      if (d.pci) nics.push_back(d.name);
    for (const auto& n : nics) fmt::print("{:<10}", n);
    fmt::print("\n");
    for (const auto& g : inv.gpus) {
      fmt::print("{:<7}", g.name);
      for (const auto& n : nics) {
        std::string dist = "-";
        for (const auto& e : inv.topology.gpu_nic)
          if (e.gpu == g.name && e.nic == n) dist = model::distanceName(e.distance);
        fmt::print("{:<10}", dist);
      }
      fmt::print("\n");
    }
  }
  fmt::print("\nInterfaces:\n");
  for (const auto& n : inv.interfaces) {
    std::string addrs = "-";
    if (n.addresses_known) {
      addrs.clear();
      for (const auto& a : n.addresses) addrs += (addrs.empty() ? "" : " ") + a;
    }
    fmt::print("  {:<16} {:<10} {:<8} mtu {:<6} {}\n", n.name, n.type, n.operstate,
               n.mtu ? std::to_string(*n.mtu) : "-", n.addresses_known ? addrs : "(addresses not recorded)");
  }
  fmt::print("\nModules:");
  for (const auto& m : inv.modules)
    if (m.loaded) fmt::print(" {}", m.name);
  fmt::print("\nNot loaded:");
  for (const auto& m : inv.modules)
    if (!m.loaded) fmt::print(" {}", m.name);
  fmt::print("\nRDMA netns mode: {}\n",
             inv.rdma_netns_shared ? (*inv.rdma_netns_shared ? "shared" : "exclusive") : "unknown");
  std::string dev;
  for (const auto& e : inv.dev_infiniband) dev += " " + e;
  fmt::print("{}:{}\n", sys::paths::kDevInfiniband,
             inv.dev_infiniband_present ? (dev.empty() ? " (empty)" : dev) : " absent");
  const auto& p = inv.process;
  fmt::print("CapEff: {}  CAP_IPC_LOCK: {}\n", p.cap_eff ? fmt::format("{:016x}", *p.cap_eff) : "unknown",
             p.cap_eff ? (((*p.cap_eff >> 14) & 1) ? "yes" : "no") : "unknown");
  fmt::print("Max locked memory: {}\n", !p.memlock.known      ? "unknown"
                                        : p.memlock.unlimited ? "unlimited"
                                                              : fmt::format("{} bytes", p.memlock.bytes));
  fmt::print("{}: {}\n", sys::paths::kDevShm,
             p.shm_bytes ? fmt::format("{} bytes ({})", *p.shm_bytes, p.shm_source) : "unknown");
  fmt::print("Environment:");
  if (p.env.empty()) fmt::print(" (no NCCL_/UCX_/OMPI_/PMIX_ variables)");
  fmt::print("\n");
  for (const auto& [k, v] : p.env) fmt::print("  {}={}\n", k, v);
}

int runInspect(const InspectOptions& opts) {
  auto read_root = ReadRoot::open(opts.root);
  if (!read_root) return reportError(read_root.error());
  FileRoot& root = read_root->files();
  model::CollectOptions options;
  if (!opts.hwloc_xml.empty()) options.hwloc_xml = opts.hwloc_xml;
  auto inv = model::collectInventory(root, options);
  if (!inv) return reportError(inv.error());
  // Ctrl-C while reading an extracted --root: stop before printing.
  if (auto st = checkInterrupt("--root"); !st) return reportError(st.error());
  if (!opts.root.empty()) inv->root = opts.root;
  auto st = emitOutput(opts.output, model::inventoryToJson(*inv), [&] { printHuman(*inv); });
  if (!st) return reportError(st.error());
  return kExitOk;
}

}  // namespace

void registerInspect(CLI::App& app, CommandContext& context) {
  auto* command =
      app.add_subcommand("inspect", "Show the RDMA devices, GPUs, topology and pod limits this node sees");
  auto opts = std::make_shared<InspectOptions>();
  command->add_option("--root", opts->root, "Read a snapshot (directory or .tar.gz) instead of this machine");
  command->add_option("--hwloc-xml", opts->hwloc_xml, "Take PCI and topology facts from an hwloc XML export");
  addOutputFlags(*command, opts->output);
  command->callback([&context, opts] { context.action = [opts] { return runInspect(*opts); }; });
}

}  // namespace railkit::cli
