#include "node_builder.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>

namespace fs = std::filesystem;

namespace railkit::testing {
namespace {

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "node_builder: %s\n", what.c_str());
  std::abort();
}

std::string hex2(int v) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%02x", v);
  return buf;
}

// Writer over one output directory; `abs` paths are inside the node ("/sys/...").
class Tree {
 public:
  explicit Tree(fs::path dir) : dir_(std::move(dir)) {}

  fs::path disk(const std::string& abs) const { return dir_ / abs.substr(1); }

  void file(const std::string& abs, const std::string& text) const {
    fs::create_directories(disk(abs).parent_path());
    std::ofstream out(disk(abs), std::ios::binary | std::ios::trunc);
    out << text;
    if (!out) die("cannot write " + disk(abs).string());
  }
  void bytes(const std::string& abs, const std::vector<uint8_t>& data) const {
    file(abs, std::string(data.begin(), data.end()));
  }
  void dir(const std::string& abs) const { fs::create_directories(disk(abs)); }
  // A relative symlink at `link` pointing at `target` (both absolute in the node).
  void link(const std::string& link, const std::string& target) const {
    fs::path lp(link);
    fs::create_directories(disk(link).parent_path());
    fs::path rel = fs::path(target).lexically_relative(lp.parent_path());
    std::error_code ec;
    fs::remove(disk(link), ec);
    fs::create_symlink(rel, disk(link));
  }

 private:
  fs::path dir_;
};

std::string pciPath(const PciSpec& pci) {
  std::string path = "/sys/devices/" + pci.host_bridge;
  for (const auto& b : pci.bridges) path += "/" + b;
  return path + "/" + pci.address;
}

uint16_t parseHex16(const std::string& s) {
  return static_cast<uint16_t>(std::strtoul(s.c_str(), nullptr, 16));
}

// PCI config space: header with ids/class, extended caps from 0x100 (AER,
// then ACS at `acs_offset`), truncated to `size` bytes.
std::vector<uint8_t> configSpace(uint16_t vendor, uint16_t device, uint32_t class_code, bool bridge,
                                 size_t size, bool acs_capable, uint16_t acs_offset, uint16_t acs_control) {
  std::vector<uint8_t> c(4096, 0);
  auto put16 = [&](size_t off, uint16_t v) {
    c[off] = v & 0xff;
    c[off + 1] = v >> 8;
  };
  auto put32 = [&](size_t off, uint32_t v) {
    put16(off, v & 0xffff);
    put16(off + 2, v >> 16);
  };
  put16(0, vendor);
  put16(2, device);
  c[0x08] = 0x01;  // revision
  c[0x09] = class_code & 0xff;
  c[0x0a] = (class_code >> 8) & 0xff;
  c[0x0b] = (class_code >> 16) & 0xff;
  c[0x0e] = bridge ? 0x01 : 0x00;
  c[0x06] = 0x10;  // status: capability list
  c[0x34] = 0x40;  // PCIe capability (id 0x10) at 0x40
  c[0x40] = 0x10;
  // Extended capabilities: header = id | version << 16 | next << 20.
  if (acs_capable && acs_offset == 0x100) {
    put32(0x100, 0x000d | (1u << 16));
  } else {
    uint32_t next = acs_capable ? acs_offset : 0;
    put32(0x100, 0x0001 | (2u << 16) | (next << 20));  // AER
    if (acs_capable) put32(acs_offset, 0x000d | (1u << 16));
  }
  if (acs_capable) {
    put16(acs_offset + 4, 0x005f);  // ACS capability: SV RR CR UF TB EC-less
    put16(acs_offset + 6, acs_control);
  }
  c.resize(size);
  return c;
}

std::string limitsText(const std::optional<uint64_t>& memlock) {
  std::string lock = memlock ? std::to_string(*memlock) : "unlimited";
  char line[128];
  std::string out = "Limit                     Soft Limit           Hard Limit           Units     \n";
  auto row = [&](const char* name, const std::string& soft, const std::string& hard, const char* units) {
    std::snprintf(line, sizeof line, "%-26s%-21s%-21s%-10s\n", name, soft.c_str(), hard.c_str(), units);
    out += line;
  };
  row("Max cpu time", "unlimited", "unlimited", "seconds");
  row("Max file size", "unlimited", "unlimited", "bytes");
  row("Max data size", "unlimited", "unlimited", "bytes");
  row("Max stack size", "8388608", "unlimited", "bytes");
  row("Max core file size", "unlimited", "unlimited", "bytes");
  row("Max resident set", "unlimited", "unlimited", "bytes");
  row("Max processes", "unlimited", "unlimited", "processes");
  row("Max open files", "1048576", "1048576", "files");
  row("Max locked memory", lock, lock, "bytes");
  row("Max address space", "unlimited", "unlimited", "bytes");
  row("Max file locks", "unlimited", "unlimited", "locks");
  row("Max pending signals", "2062732", "2062732", "signals");
  row("Max msgqueue size", "819200", "819200", "bytes");
  row("Max nice priority", "0", "0", "");
  row("Max realtime priority", "0", "0", "");
  row("Max realtime timeout", "unlimited", "unlimited", "us");
  return out;
}

std::string statusText(uint64_t cap_eff) {
  char caps[64];
  std::snprintf(caps, sizeof caps, "%016llx", static_cast<unsigned long long>(cap_eff));
  return std::string(
             "Name:\tall_reduce_perf\nUmask:\t0022\nState:\tR (running)\nTgid:\t1\n"
             "Pid:\t1\nPPid:\t0\nUid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\n"
             "VmRSS:\t   10240 kB\nThreads:\t1\n"
             "CapInh:\t0000000000000000\nCapPrm:\t") +
         caps + "\nCapEff:\t" + caps + "\nCapBnd:\t" + caps +
         "\nCapAmb:\t0000000000000000\nNoNewPrivs:\t0\nSeccomp:\t2\n"
         "Cpus_allowed_list:\t0-223\nMems_allowed_list:\t0-1\n";
}

std::string mountinfoText(const NodeSpec& s) {
  std::string out =
      "2810 2641 0:412 / / rw,relatime master:1003 - overlay overlay "
      "rw,lowerdir=/var/lib/containerd/l/1,upperdir=/var/lib/containerd/u/1,workdir=/var/lib/"
      "containerd/w/1\n"
      "2811 2810 0:415 / /proc rw,nosuid,nodev,noexec,relatime - proc proc rw\n"
      "2812 2810 0:416 / /dev rw,nosuid - tmpfs tmpfs rw,size=65536k,mode=755,inode64\n"
      "2815 2810 0:401 / /sys ro,nosuid,nodev,noexec,relatime - sysfs sysfs ro\n";
  if (s.shm_mounted) {
    out += "2818 2812 0:398 / /dev/shm rw,nosuid,nodev,noexec,relatime - tmpfs shm rw";
    if (s.shm_kib) out += ",size=" + std::to_string(*s.shm_kib) + "k";
    out += ",inode64\n";
  }
  out +=
      "2820 2810 259:2 /var/lib/kubelet/pods/abc/etc-hosts /etc/hosts rw,relatime - ext4 "
      "/dev/nvme0n1p2 rw\n";
  return out;
}

void writePciFunction(const Tree& t, const PciSpec& pci, const NodeSpec& s) {
  std::string p = pciPath(pci);
  t.file(p + "/vendor", pci.vendor + "\n");
  t.file(p + "/device", pci.device + "\n");
  t.file(p + "/class", pci.class_code + "\n");
  t.file(p + "/numa_node", std::to_string(pci.numa_node) + "\n");
  t.file(p + "/current_link_width", std::to_string(pci.cur_width) + "\n");
  t.file(p + "/max_link_width", std::to_string(pci.max_width) + "\n");
  t.file(p + "/current_link_speed", pci.cur_speed + "\n");
  t.file(p + "/max_link_speed", pci.max_speed + "\n");
  t.bytes(p + "/config", configSpace(parseHex16(pci.vendor), parseHex16(pci.device),
                                     static_cast<uint32_t>(std::strtoul(pci.class_code.c_str(), nullptr, 16)),
                                     false, pci.config_size, false, 0, 0));
  if (!pci.driver.empty()) t.link(p + "/driver", "/sys/bus/pci/drivers/" + pci.driver);
  t.link("/sys/bus/pci/devices/" + pci.address, p);
  (void)s;
}

void writeBridges(const Tree& t, const PciSpec& pci, const NodeSpec& s, std::map<std::string, bool>& done) {
  std::string path = "/sys/devices/" + pci.host_bridge;
  for (size_t i = 0; i < pci.bridges.size(); ++i) {
    const std::string& addr = pci.bridges[i];
    path += "/" + addr;
    if (done[addr]) continue;
    done[addr] = true;
    const BridgeSpec* spec = nullptr;
    for (const auto& b : s.bridges)
      if (b.address == addr) spec = &b;
    BridgeSpec def;
    def.address = addr;
    if (!spec) spec = &def;
    bool root_port = i == 0;
    std::string device = root_port ? "0x1bbf" : "0xc010";  // Intel root port, Broadcom switch
    std::string vendor = root_port ? "0x8086" : "0x1000";
    t.file(path + "/vendor", vendor + "\n");
    t.file(path + "/device", device + "\n");
    t.file(path + "/class", "0x060400\n");
    t.file(path + "/numa_node", std::to_string(pci.numa_node) + "\n");
    t.file(path + "/current_link_width", "16\n");
    t.file(path + "/max_link_width", "16\n");
    t.file(path + "/current_link_speed", "32.0 GT/s PCIe\n");
    t.file(path + "/max_link_speed", "32.0 GT/s PCIe\n");
    t.bytes(path + "/config",
            configSpace(parseHex16(vendor), parseHex16(device), 0x060400, true, spec->config_size,
                        spec->acs_capable, spec->acs_offset, spec->acs_control));
    t.link(path + "/driver", "/sys/bus/pci/drivers/pcieport");
    t.link("/sys/bus/pci/devices/" + addr, path);
  }
}

std::string zeroGid() {
  return "0000:0000:0000:0000:0000:0000:0000:0000";
}

void writeNic(const Tree& t, const NicSpec& nic, const NodeSpec& s) {
  writePciFunction(t, nic.pci, s);
  std::string p = pciPath(nic.pci);
  std::string ib = p + "/infiniband/" + nic.name;
  t.link("/sys/class/infiniband/" + nic.name, ib);
  t.link(ib + "/device", p);
  t.file(ib + "/node_type", "1: CA\n");
  t.file(ib + "/fw_ver", nic.fw_ver + "\n");
  t.file(ib + "/node_guid", nic.node_guid + "\n");
  t.file(ib + "/hca_type", "MT4129\n");
  for (const auto& port : nic.ports) {
    std::string pp = ib + "/ports/" + std::to_string(port.port);
    t.file(pp + "/state", port.state + "\n");
    t.file(pp + "/phys_state", port.phys_state + "\n");
    t.file(pp + "/rate", port.rate + "\n");
    t.file(pp + "/link_layer", port.link_layer + "\n");
    t.file(pp + "/lid", port.lid + "\n");
    t.file(pp + "/sm_lid", port.sm_lid + "\n");
    t.file(pp + "/lid_mask_count", "0\n");
    int slots = 4;
    for (const auto& g : port.gids) slots = std::max(slots, g.index + 1);
    for (int i = 0; i < slots; ++i) {
      const GidSpec* gid = nullptr;
      for (const auto& g : port.gids)
        if (g.index == i) gid = &g;
      std::string idx = std::to_string(i);
      t.file(pp + "/gids/" + idx, (gid ? gid->gid : zeroGid()) + "\n");
      // The kernel lists a types/ndevs entry per slot; reading an empty slot
      // fails with EINVAL, which a tree expresses as the file being absent.
      t.dir(pp + "/gid_attrs/types");
      t.dir(pp + "/gid_attrs/ndevs");
      if (gid && !gid->type.empty()) t.file(pp + "/gid_attrs/types/" + idx, gid->type + "\n");
      if (gid && !gid->netdev.empty()) t.file(pp + "/gid_attrs/ndevs/" + idx, gid->netdev + "\n");
    }
    for (const auto& [name, text] : port.counters) t.file(pp + "/counters/" + name, text);
    for (const auto& [name, text] : port.counters_ext) t.file(pp + "/counters_ext/" + name, text);
    for (const auto& [name, text] : port.hw_counters) t.file(pp + "/hw_counters/" + name, text);
  }
  t.dir("/sys/class/infiniband_verbs");
  if (nic.total_vfs > 0) {
    t.file(p + "/sriov_totalvfs", std::to_string(nic.total_vfs) + "\n");
    t.file(p + "/sriov_numvfs", std::to_string(nic.num_vfs) + "\n");
    // VFs sit at function 1.. on the same bus, as siblings of the PF.
    std::string bus = nic.pci.address.substr(0, 10);  // "0000:19:00"
    for (int i = 0; i < nic.num_vfs; ++i) {
      PciSpec vf = nic.pci;
      int dev = (i + 1) / 8, fn = (i + 1) % 8;
      vf.address = nic.pci.address.substr(0, 8) + hex2(dev) + "." + std::to_string(fn);
      vf.device = "0x101e";
      writePciFunction(t, vf, s);
      t.link(p + "/virtfn" + std::to_string(i), pciPath(vf));
      t.link(pciPath(vf) + "/physfn", p);
    }
    (void)bus;
  }
}

void writeNetdev(const Tree& t, const NetdevSpec& n, const NodeSpec& s) {
  std::string base;
  if (n.pci.empty()) {
    base = "/sys/devices/virtual/net/" + n.name;
  } else {
    const PciSpec* pci = nullptr;
    for (const auto& nic : s.nics)
      if (nic.pci.address == n.pci) pci = &nic.pci;
    if (!pci) die("netdev " + n.name + " names unknown PCI " + n.pci);
    base = pciPath(*pci) + "/net/" + n.name;
    t.link(base + "/device", pciPath(*pci));
  }
  t.link("/sys/class/net/" + n.name, base);
  t.file(base + "/type", n.type + "\n");
  t.file(base + "/operstate", n.operstate + "\n");
  t.file(base + "/mtu", std::to_string(n.mtu) + "\n");
  t.file(base + "/dev_port", std::to_string(n.dev_port) + "\n");
  t.file(base + "/address", n.address + "\n");
  t.file(base + "/ifindex", "1\n");
  auto ecn = s.ecn.find(n.name);
  if (ecn != s.ecn.end())
    for (auto [mask, side] :
         {std::pair{ecn->second.first, "roce_np"}, std::pair{ecn->second.second, "roce_rp"}})
      for (int p = 0; p < 8; ++p)
        t.file(base + "/ecn/" + side + "/enable/" + std::to_string(p), (mask >> p & 1) ? "1\n" : "0\n");
}

}  // namespace

void NodeBuilder::write(const fs::path& dir) const {
  std::error_code ec;
  fs::remove_all(dir, ec);
  fs::create_directories(dir);
  Tree t(dir);
  const NodeSpec& s = spec_;
  t.dir("/sys/class/infiniband");
  t.dir("/sys/class/net");
  t.dir("/sys/module");
  std::map<std::string, bool> done;
  for (const auto& g : s.gpus) writeBridges(t, g.pci, s, done);
  for (const auto& n : s.nics) writeBridges(t, n.pci, s, done);
  for (const auto& g : s.gpus) writePciFunction(t, g.pci, s);
  for (const auto& n : s.nics) writeNic(t, n, s);
  for (const auto& n : s.netdevs) writeNetdev(t, n, s);
  // Drivers directory so driver links resolve.
  for (const char* d : {"mlx5_core", "nvidia", "pcieport"}) t.dir(std::string("/sys/bus/pci/drivers/") + d);
  for (const auto& m : s.modules) {
    t.file("/sys/module/" + m + "/refcnt", "1\n");
    t.file("/sys/module/" + m + "/initstate", "live\n");
    if (auto v = s.module_versions.find(m); v != s.module_versions.end())
      t.file("/sys/module/" + m + "/version", v->second + "\n");
  }
  if (!s.netns_mode.empty()) t.file("/sys/module/ib_core/parameters/netns_mode", s.netns_mode + "\n");
  if (s.uverbs > 0) {
    t.file("/dev/infiniband/rdma_cm", "");
    for (int i = 0; i < s.uverbs; ++i) t.file("/dev/infiniband/uverbs" + std::to_string(i), "");
  }
  t.file("/proc/self/status", statusText(s.cap_eff));
  t.file("/proc/self/limits", limitsText(s.memlock_bytes));
  t.file("/proc/self/mountinfo", mountinfoText(s));
  std::string environ;
  for (const auto& [k, v] : s.env) environ += k + "=" + v + '\0';
  t.file("/proc/self/environ", environ);
  if (!s.live_json.empty()) t.file("/railkit/live.json", s.live_json);
  int nproc = s.nvidia_proc_gpus < 0 ? static_cast<int>(s.gpus.size()) : s.nvidia_proc_gpus;
  for (int i = 0; i < nproc && i < static_cast<int>(s.gpus.size()); ++i) {
    const auto& g = s.gpus[i];
    t.file("/proc/driver/nvidia/gpus/" + g.pci.address + "/information",
           "Model: \t\t " + g.model + "\nIRQ:   \t\t " + std::to_string(100 + i) +
               "\nGPU UUID: \t GPU-6f1c2b3a-0000-4000-8000-00000000000" + std::to_string(i) +
               "\nVideo BIOS: \t 96.00.74.00.01\nBus Type: \t PCIe\nDMA Size: \t 52 bits\n"
               "DMA Mask: \t 0xfffffffffffff\nBus Location: \t " +
               g.pci.address + "\nDevice Minor: \t " + std::to_string(i) + "\nGPU Excluded:\t No\n");
  }
}

namespace {

// Bus bases of the 8 GPU/NIC pairs: 4 per NUMA node, each its own root complex.
constexpr int kBases[8] = {0x17, 0x38, 0x49, 0x5a, 0x97, 0xb8, 0xc9, 0xda};

std::string addr(int bus, int dev = 0, int fn = 0) {
  return "0000:" + hex2(bus) + ":" + hex2(dev) + "." + std::to_string(fn);
}

PciSpec makePci(std::string address, std::string host_bridge, std::vector<std::string> bridges,
                std::string vendor, std::string device, std::string class_code, int numa,
                std::string driver) {
  PciSpec p;
  p.address = std::move(address);
  p.host_bridge = std::move(host_bridge);
  p.bridges = std::move(bridges);
  p.vendor = std::move(vendor);
  p.device = std::move(device);
  p.class_code = std::move(class_code);
  p.numa_node = numa;
  p.driver = std::move(driver);
  return p;
}

NodeSpec dgxSpec(bool roce) {
  NodeSpec s;
  for (int i = 0; i < 8; ++i) {
    int b = kBases[i];
    int numa = i < 4 ? 0 : 1;
    std::string rp = addr(b, 1), usp = addr(b + 1), dsp_nic = addr(b + 2, 0), dsp_gpu = addr(b + 2, 1);
    for (const auto& a : {rp, usp, dsp_nic, dsp_gpu}) s.bridges.push_back(BridgeSpec{a});
    GpuSpec gpu;
    gpu.pci = makePci(addr(b + 4), "pci0000:" + hex2(b), {rp, usp, dsp_gpu}, "0x10de", "0x2330", "0x030200",
                      numa, "nvidia");
    s.gpus.push_back(gpu);
    NicSpec nic;
    nic.name = "mlx5_" + std::to_string(i);
    nic.pci = makePci(addr(b + 3), "pci0000:" + hex2(b), {rp, usp, dsp_nic}, "0x15b3", "0x1021",
                      roce ? "0x020000" : "0x020700", numa, "mlx5_core");
    nic.node_guid = "a088:c203:00" + hex2(i) + ":1e" + hex2(b);
    nic.total_vfs = 16;
    PortSpec port;
    std::string guid_tail = "a088:c203:00" + hex2(i) + ":1e" + hex2(b);
    NetdevSpec nd;
    nd.pci = nic.pci.address;
    nd.address = "02:00:00:00:" + hex2(i) + ":" + hex2(b);
    if (roce) {
      nd.name = "ens" + std::to_string(i) + "f0np0";
      nd.type = "1";
      nd.mtu = 9000;
      port.link_layer = "Ethernet";
      port.lid = "0x0";
      port.sm_lid = "0x0";
      std::string ll = "fe80:0000:0000:0000:0000:00ff:fe00:" + hex2(i) + hex2(b);
      std::string v4 = "0000:0000:0000:0000:0000:ffff:0a0a:" + hex2(i) + "01";
      port.gids = {{0, ll, "IB/RoCE v1", nd.name},
                   {1, ll, "RoCE v2", nd.name},
                   {2, v4, "IB/RoCE v1", nd.name},
                   {3, v4, "RoCE v2", nd.name}};
    } else {
      nd.name = "ib" + std::to_string(i);
      nd.type = "32";
      nd.mtu = 4092;
      nd.address = "00:00:10:29:fe:80:00:00:00:00:00:00:" + guid_tail;
      port.lid = "0x" + std::to_string(i + 10);
      port.sm_lid = "0x1";
      port.gids = {{0, "fe80:0000:0000:0000:" + guid_tail, "IB/RoCE v1", ""}};
    }
    nic.ports.push_back(port);
    s.nics.push_back(nic);
    s.netdevs.push_back(nd);
  }
  s.netdevs.insert(s.netdevs.begin(), NetdevSpec{"eth0", "1", "up", 1500, 0, "", "0a:58:0a:f4:01:07"});
  s.netdevs.insert(s.netdevs.begin(), NetdevSpec{"lo", "772", "unknown", 65536, 0, ""});
  s.modules = {"ib_core",   "ib_uverbs", "rdma_ucm", "rdma_cm",    "ib_cm",         "ib_umad",
               "mlx5_core", "mlx5_ib",   "nvidia",   "nvidia_uvm", "nvidia_peermem"};
  if (!roce) s.modules.push_back("ib_ipoib");
  s.cap_eff = NodeBuilder::kDefaultCaps | NodeBuilder::kCapIpcLock;
  s.memlock_bytes = std::nullopt;
  s.shm_kib = 256ull * 1024 * 1024;
  s.env = {{"PATH", "/usr/local/bin:/usr/bin:/bin"},
           {"HOSTNAME", "trainer-0"},
           {"NCCL_SOCKET_IFNAME", "eth0"},
           {"NCCL_IB_HCA", "=mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7"},
           {"NCCL_DEBUG", "WARN"},
           {"OMPI_MCA_btl_tcp_if_include", "eth0"},
           {"OMPI_MCA_coll_hcoll_enable", "0"},
           {"OMPI_MCA_coll_ucc_enable", "0"},
           {"OMPI_MCA_pml", "ucx"},
           {"UCX_NET_DEVICES", "mlx5_0:1"}};
  if (roce) s.env.push_back({"NCCL_IB_GID_INDEX", "3"});
  return s;
}

}  // namespace

NodeBuilder NodeBuilder::healthyDgxH100() {
  return NodeBuilder(dgxSpec(false));
}
NodeBuilder NodeBuilder::healthyRoce() {
  return NodeBuilder(dgxSpec(true));
}

NodeBuilder NodeBuilder::emptyPod() {
  NodeSpec s;
  s.netdevs = {NetdevSpec{"lo", "772", "unknown", 65536, 0, ""},
               NetdevSpec{"eth0", "1", "up", 1500, 0, "", "0a:58:0a:f4:01:07"}};
  s.modules = {};
  s.netns_mode = "";
  s.uverbs = 0;
  s.cap_eff = kDefaultCaps;
  s.memlock_bytes = 8ull << 20;
  s.shm_kib = 65536;
  s.env = {{"PATH", "/usr/bin:/bin"}};
  return NodeBuilder(s);
}

NicSpec& NodeBuilder::nic(const std::string& name) {
  for (auto& n : spec_.nics)
    if (n.name == name) return n;
  die("no NIC named " + name);
}

PortSpec& NodeBuilder::port(const std::string& name, int port) {
  for (auto& p : nic(name).ports)
    if (p.port == port) return p;
  die("no port " + std::to_string(port) + " on " + name);
}

static GidSpec& gidOf(PortSpec& port, int index) {
  for (auto& g : port.gids)
    if (g.index == index) return g;
  port.gids.push_back(GidSpec{index, "fe80:0000:0000:0000:0000:0000:0000:0001", "", ""});
  return port.gids.back();
}

NodeBuilder& NodeBuilder::setPortState(const std::string& n, int p, const std::string& state,
                                       const std::string& phys_state) {
  port(n, p).state = state;
  port(n, p).phys_state = phys_state;
  return *this;
}
NodeBuilder& NodeBuilder::setSmLid(const std::string& n, int p, const std::string& sm_lid) {
  port(n, p).sm_lid = sm_lid;
  return *this;
}
NodeBuilder& NodeBuilder::setRate(const std::string& n, int p, const std::string& rate) {
  port(n, p).rate = rate;
  return *this;
}
NodeBuilder& NodeBuilder::removeUverbs() {
  spec_.uverbs = 0;
  return *this;
}
NodeBuilder& NodeBuilder::setMemlock(std::optional<uint64_t> bytes) {
  spec_.memlock_bytes = bytes;
  return *this;
}
NodeBuilder& NodeBuilder::dropCapIpcLock() {
  spec_.cap_eff &= ~kCapIpcLock;
  return *this;
}
NodeBuilder& NodeBuilder::setShmKib(std::optional<uint64_t> kib) {
  spec_.shm_kib = kib;
  return *this;
}
NodeBuilder& NodeBuilder::addVfs(const std::string& n, int count) {
  auto& x = nic(n);
  x.total_vfs = std::max(x.total_vfs, count);
  x.num_vfs = count;
  return *this;
}
NodeBuilder& NodeBuilder::setNetnsMode(const std::string& mode) {
  spec_.netns_mode = mode;
  return *this;
}
NodeBuilder& NodeBuilder::setGidNetdev(const std::string& n, int p, int index, const std::string& netdev) {
  gidOf(port(n, p), index).netdev = netdev;
  return *this;
}
NodeBuilder& NodeBuilder::setGidType(const std::string& n, int p, int index, const std::string& type) {
  gidOf(port(n, p), index).type = type;
  return *this;
}
NodeBuilder& NodeBuilder::loadModule(const std::string& name) {
  unloadModule(name);
  spec_.modules.push_back(name);
  return *this;
}
NodeBuilder& NodeBuilder::unloadModule(const std::string& name) {
  std::erase(spec_.modules, name);
  return *this;
}
NodeBuilder& NodeBuilder::setAcsAboveNic(const std::string& n, uint16_t control) {
  for (const auto& a : nic(n).pci.bridges)
    for (auto& b : spec_.bridges)
      if (b.address == a) b.acs_control = control;
  return *this;
}
NodeBuilder& NodeBuilder::setBridgeConfigSize(size_t bytes) {
  for (auto& b : spec_.bridges) b.config_size = bytes;
  return *this;
}
NodeBuilder& NodeBuilder::degradeNicLink(const std::string& n, int width, const std::string& speed) {
  nic(n).pci.cur_width = width;
  nic(n).pci.cur_speed = speed;
  return *this;
}
NodeBuilder& NodeBuilder::degradeGpuLink(int gpu, int width, const std::string& speed) {
  if (gpu < 0 || gpu >= static_cast<int>(spec_.gpus.size())) die("no GPU " + std::to_string(gpu));
  spec_.gpus[gpu].pci.cur_width = width;
  spec_.gpus[gpu].pci.cur_speed = speed;
  return *this;
}
NodeBuilder& NodeBuilder::moveNicFar(const std::string& n) {
  auto& x = nic(n);
  // A root complex of its own on the other NUMA node, with no GPU below it.
  int other = x.pci.numa_node == 0 ? 1 : 0;
  int bus = 0xe8 + static_cast<int>(x.name.back() - '0');
  std::string rp = addr(bus, 1);
  spec_.bridges.push_back(BridgeSpec{rp});
  std::string old = x.pci.address;
  x.pci.host_bridge = "pci0000:" + hex2(bus);
  x.pci.bridges = {rp};
  x.pci.address = addr(bus + 1 > 0xff ? bus : bus + 1);
  x.pci.numa_node = other;
  for (auto& nd : spec_.netdevs)
    if (nd.pci == old) nd.pci = x.pci.address;
  return *this;
}
NodeBuilder& NodeBuilder::setNetdevMtu(const std::string& netdev, int mtu) {
  for (auto& n : spec_.netdevs)
    if (n.name == netdev) n.mtu = mtu;
  return *this;
}
NodeBuilder& NodeBuilder::setNetdevOperstate(const std::string& netdev, const std::string& op) {
  for (auto& n : spec_.netdevs)
    if (n.name == netdev) n.operstate = op;
  return *this;
}
NodeBuilder& NodeBuilder::setEcn(const std::string& netdev, uint8_t np_mask, uint8_t rp_mask) {
  for (auto& n : spec_.netdevs)
    if (n.name == netdev) {
      spec_.ecn[netdev] = {np_mask, rp_mask};
      return *this;
    }
  die("no netdev named " + netdev);
}

NodeBuilder& NodeBuilder::setLiveJson(std::string text) {
  spec_.live_json = std::move(text);
  return *this;
}

NodeBuilder& NodeBuilder::addNetdev(const NetdevSpec& netdev) {
  spec_.netdevs.push_back(netdev);
  return *this;
}
NodeBuilder& NodeBuilder::setEnv(const std::string& key, const std::string& value) {
  unsetEnv(key);
  spec_.env.push_back({key, value});
  return *this;
}
NodeBuilder& NodeBuilder::unsetEnv(const std::string& key) {
  std::erase_if(spec_.env, [&](const auto& kv) { return kv.first == key; });
  return *this;
}

void buildHealthyDgxH100(const fs::path& dir) {
  NodeBuilder::healthyDgxH100().write(dir);
}
void buildHealthyRoce(const fs::path& dir) {
  NodeBuilder::healthyRoce().write(dir);
}

}  // namespace railkit::testing
