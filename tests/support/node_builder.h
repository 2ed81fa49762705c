#pragma once
// NodeBuilder: writes a realistic sysfs/proc/dev tree for one node or pod into
// a directory, so every reader and every doctor rule can be tested from disk
// exactly as it runs on a machine (FileRoot over the tree).
//
// The tree mirrors what the kernel shows: devices live under
// sys/devices/pci0000:BB/<root port>/<switch up>/<switch down>/<function>, and
// sys/class/infiniband, sys/class/net, sys/bus/pci/devices hold RELATIVE
// symlinks into it ("../../devices/pci0000:17/..."); PCI `config` files are
// binary (64/256/4096 bytes) with an ACS extended capability; /proc files use
// the kernel's real formats.
//
// Usage: start from a preset spec, break one thing, write it.
//
//   auto node = NodeBuilder::healthyDgxH100();   // 8 GPUs, 8 CX-7 IB NDR
//   node.setPortState("mlx5_3", 1, "1: DOWN", "3: Disabled");
//   node.write(dir);                               // dir is created
//
// or `buildHealthyDgxH100(dir)` for the untouched node. The spec structs are
// public: a test may edit any field directly; the methods are shortcuts for
// the breakages the doctor rules look for.

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace railkit::testing {

struct GidSpec {
  int index = 0;
  std::string gid;     // "fe80:0000:0000:0000:a088:c203:0012:3456"
  std::string type;    // "IB/RoCE v1", "RoCE v2"; "" = no types file
  std::string netdev;  // gid_attrs/ndevs; "" = no ndevs file (IB)
};

struct PortSpec {
  int port = 1;
  std::string state = "4: ACTIVE";
  std::string phys_state = "5: LinkUp";
  std::string rate = "400 Gb/sec (4X NDR)";
  std::string link_layer = "InfiniBand";
  std::string lid = "0x1";
  std::string sm_lid = "0x1";
  std::vector<GidSpec> gids;  // written as gids/N; unused slots 0..3 are zero GIDs
  // Counter files, name -> content ("1234\n" as the kernel writes them). Each
  // directory is written only when its list is not empty (a port without
  // counters/, as in a snapshot, is the default).
  std::vector<std::pair<std::string, std::string>> counters;      // ports/N/counters/
  std::vector<std::pair<std::string, std::string>> counters_ext;  // ports/N/counters_ext/ (old kernels)
  std::vector<std::pair<std::string, std::string>> hw_counters;   // ports/N/hw_counters/
};

// One PCIe bridge (root port or switch port) above a device.
struct BridgeSpec {
  std::string address;          // "0000:17:01.0"
  size_t config_size = 4096;    // 64/256 = what an unprivileged reader sees
  bool acs_capable = true;      // ACS extended capability present
  uint16_t acs_offset = 0x148;  // where the ACS capability sits (after AER at 0x100)
  uint16_t acs_control = 0;     // bit0 source validation, bit2 request redirect
};

struct PciSpec {
  std::string address;               // "0000:19:00.0"
  std::string host_bridge;           // "pci0000:17"
  std::vector<std::string> bridges;  // addresses from the root port down
  std::string vendor;                // "0x15b3"
  std::string device;                // "0x1021"
  std::string class_code;            // "0x020700"
  int numa_node = 0;                 // -1 = no NUMA
  int cur_width = 16, max_width = 16;
  std::string cur_speed = "32.0 GT/s PCIe", max_speed = "32.0 GT/s PCIe";
  std::string driver;  // "mlx5_core"; "" = unbound
  size_t config_size = 4096;
};

struct NetdevSpec {
  std::string name;        // "ib0", "eth0"
  std::string type = "1";  // ARPHRD: 1 ether, 32 infiniband, 772 loopback
  std::string operstate = "up";
  int mtu = 1500;
  int dev_port = 0;  // 0-based port of the RDMA device
  std::string pci;   // backing PCI address; "" = devices/virtual/net
  std::string address = "00:00:00:00:00:00";
};

struct NicSpec {
  std::string name;  // "mlx5_0"
  PciSpec pci;
  std::vector<PortSpec> ports;
  std::string node_guid = "a088:c203:0000:0000";
  std::string fw_ver = "28.39.1002";
  int total_vfs = 0;  // sriov_totalvfs; 0 = no SR-IOV files
  int num_vfs = 0;    // sriov_numvfs; VFs are written as virtfnN -> ../<vf>
};

struct GpuSpec {
  PciSpec pci;
  std::string model = "NVIDIA H100 80GB HBM3";  // /proc/driver/nvidia/gpus/<pci>/information
};

struct NodeSpec {
  std::vector<GpuSpec> gpus;
  std::vector<NicSpec> nics;
  std::vector<BridgeSpec> bridges;                     // every bridge named in any PciSpec
  std::vector<NetdevSpec> netdevs;                     // lo, eth0, the NICs' netdevs
  std::vector<std::string> modules;                    // /sys/module/<m>
  std::map<std::string, std::string> module_versions;  // /sys/module/<m>/version; absent = none
  std::string netns_mode = "Y";                        // ib_core parameters/netns_mode; "" = absent
  int uverbs = 8;                                      // /dev/infiniband/uverbs0..N-1 (+ rdma_cm when > 0)
  uint64_t cap_eff = 0;                                // /proc/self/status CapEff
  std::optional<uint64_t> memlock_bytes;               // nullopt = unlimited
  std::optional<uint64_t> shm_kib;                     // /dev/shm tmpfs size=...k; nullopt = no size option
  bool shm_mounted = true;
  std::vector<std::pair<std::string, std::string>> env;  // /proc/self/environ
  int nvidia_proc_gpus = -1;  // -1 = one /proc/driver/nvidia/gpus entry per GPU, 0 = none
  std::string live_json;      // railkit/live.json (addresses, routing, dcb); "" = none
  // netdev -> mlx5 ecn/roce_np, roce_rp enable masks (bit p = priority p); absent = no ecn/.
  std::map<std::string, std::pair<uint8_t, uint8_t>> ecn;
};

class NodeBuilder {
 public:
  static constexpr uint64_t kCapIpcLock = 1ull << 14;
  // Docker's default capability set (no IPC_LOCK).
  static constexpr uint64_t kDefaultCaps = 0xa80425fbull;

  // 8x H100 (0x10de/0x2330), 8x ConnectX-7 IB NDR 400G, each NIC sharing a
  // PCIe switch with one GPU, 2 NUMA nodes, ACS off, IPC_LOCK, memlock
  // unlimited, 256 GiB /dev/shm, peermem loaded, sane NCCL/OMPI env.
  static NodeBuilder healthyDgxH100();
  // The same node with RoCE v2 ports (Ethernet link layer, netdevs with
  // MTU 9000, GIDs v1/v2 for link-local and IPv4, NCCL_IB_GID_INDEX=3).
  static NodeBuilder healthyRoce();
  // A pod with no RDMA device and no GPU (eth0 + lo only).
  static NodeBuilder emptyPod();

  explicit NodeBuilder(NodeSpec spec) : spec_(std::move(spec)) {}
  NodeSpec& spec() { return spec_; }
  const NodeSpec& spec() const { return spec_; }

  // Writes the tree under `dir` (created; existing content is replaced).
  void write(const std::filesystem::path& dir) const;

  // --- Breakages (names are RDMA device names, ports are 1-based). Each
  // returns *this so they chain. They abort the test program on an unknown name.
  NodeBuilder& setPortState(const std::string& nic, int port, const std::string& state,
                            const std::string& phys_state);
  NodeBuilder& setSmLid(const std::string& nic, int port, const std::string& sm_lid);
  NodeBuilder& setRate(const std::string& nic, int port, const std::string& rate);
  NodeBuilder& removeUverbs();
  NodeBuilder& setMemlock(std::optional<uint64_t> bytes);  // nullopt = unlimited
  NodeBuilder& dropCapIpcLock();
  NodeBuilder& setShmKib(std::optional<uint64_t> kib);
  // Configures `count` VFs on the NIC (sriov files + VF functions).
  NodeBuilder& addVfs(const std::string& nic, int count);
  NodeBuilder& setNetnsMode(const std::string& mode);
  // Points GID `index` of the port at a netdev name (one that need not exist).
  NodeBuilder& setGidNetdev(const std::string& nic, int port, int index, const std::string& netdev);
  NodeBuilder& setGidType(const std::string& nic, int port, int index, const std::string& type);
  NodeBuilder& loadModule(const std::string& name);
  NodeBuilder& unloadModule(const std::string& name);
  // ACS control bits on every bridge above the NIC (bit0 SV, bit2 RR).
  NodeBuilder& setAcsAboveNic(const std::string& nic, uint16_t control);
  // Config space size of every bridge (64/256 hide the extended caps).
  NodeBuilder& setBridgeConfigSize(size_t bytes);
  NodeBuilder& degradeNicLink(const std::string& nic, int width, const std::string& speed);
  NodeBuilder& degradeGpuLink(int gpu, int width, const std::string& speed);
  // Moves the NIC under a root complex of the other NUMA node, away from
  // every GPU of its old NUMA node (its nearest GPU becomes NODE or SYS).
  NodeBuilder& moveNicFar(const std::string& nic);
  NodeBuilder& setNetdevMtu(const std::string& netdev, int mtu);
  NodeBuilder& setNetdevOperstate(const std::string& netdev, const std::string& operstate);
  NodeBuilder& addNetdev(const NetdevSpec& netdev);
  NodeBuilder& setEcn(const std::string& netdev, uint8_t np_mask, uint8_t rp_mask);
  NodeBuilder& setLiveJson(std::string text);
  NodeBuilder& setEnv(const std::string& key, const std::string& value);
  NodeBuilder& unsetEnv(const std::string& key);

  NicSpec& nic(const std::string& name);
  PortSpec& port(const std::string& nic, int port);

 private:
  NodeSpec spec_;
};

// One-call helpers for the presets.
void buildHealthyDgxH100(const std::filesystem::path& dir);
void buildHealthyRoce(const std::filesystem::path& dir);

}  // namespace railkit::testing
