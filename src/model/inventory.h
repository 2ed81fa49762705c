#pragma once
// The inventory: plain structs describing what one node or pod can see for
// RDMA. `inspect` prints it, `doctor` runs rules over it, `snapshot` captures
// what it was built from. Everything optional is optional because a partial
// snapshot or an unprivileged container may not show it: absent is reported
// as absent, never guessed.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/environment.h"
#include "sys/net_state.h"

namespace railkit::model {

struct Gid {
  int index = 0;
  std::string gid;     // "fe80:0000:0000:0000:0a00:27ff:fe00:0001"
  std::string type;    // gid_attrs/types: "IB/RoCE v1", "RoCE v2", "" when unreadable
  std::string netdev;  // gid_attrs/ndevs: "eth2", "" when none
};

struct RdmaPort {
  int port = 0;
  std::string state;       // "ACTIVE", "DOWN", "INIT", "ARMED", "ACTIVE_DEFER", "" when absent
  std::string phys_state;  // "LinkUp", "Disabled", "Polling", ... "" when absent
  // The code before the text ("5" of "5: LinkUp"): the kernel prints both
  // from one value, so a text that disagrees with the code is a broken
  // capture or driver, and what carries traffic follows the code.
  std::optional<int> phys_state_code;
  std::optional<double> rate_gbps;
  std::string rate_text;   // as sysfs prints it: "400 Gb/sec (4X NDR)"
  std::string link_layer;  // "InfiniBand" or "Ethernet"
  std::optional<uint32_t> lid;
  std::optional<uint32_t> sm_lid;
  std::vector<Gid> gids;  // non-zero entries only
  std::string netdev;     // what ibdev2netdev prints for this port, "" when none
};

// Physically linked: phys_state code 5 (LinkUp), or the text LinkUp when
// no code is printed. The code decides, as the kernel derives the text
// from it.
inline bool physLinkUp(const RdmaPort& p) {
  return p.phys_state_code ? *p.phys_state_code == 5 : p.phys_state == "LinkUp";
}

// A port that carries traffic: physically linked and logically ACTIVE.
// NCCL and UCX use only such ports; `railkit env` selects only them and
// doctor checks lists against them.
inline bool portUsable(const RdmaPort& p) {
  return physLinkUp(p) && p.state == "ACTIVE";
}

// ACTIVE and, when the kernel shows the physical state, LinkUp. Unlike
// portUsable, a port whose phys_state could not be read is judged by its
// logical state alone: validate's count of ports up and the exporter's
// railkit_rdma_port_up do not call a port down for an unreadable file.
inline bool portActive(const RdmaPort& p) {
  bool phys_unknown = p.phys_state.empty() && !p.phys_state_code;
  return p.state == "ACTIVE" && (phys_unknown || physLinkUp(p));
}

struct PcieLink {
  std::optional<int> current_width;
  std::optional<int> max_width;
  std::optional<double> current_speed_gts;  // GT/s
  std::optional<double> max_speed_gts;
};

// One PCI function (a NIC, GPU or VF).
struct PciFunction {
  std::string address;           // "0000:3b:00.0"
  std::string sysfs_path;        // resolved, "/sys/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0"
  std::string vendor;            // "0x15b3"
  std::string device;            // "0x1021"
  std::string class_code;        // "0x020700"
  std::optional<int> numa_node;  // nullopt when absent or -1
  PcieLink link;
  std::string driver;  // "mlx5_core"
  // Bridges from the root port down to the function's parent (addresses).
  std::vector<std::string> upstream_bridges;
};

struct Sriov {
  std::optional<int> num_vfs;
  std::optional<int> total_vfs;
  std::vector<std::string> vfs;  // PCI addresses of virtfn*
  std::string physfn;            // set when this function is itself a VF
};

struct RdmaDevice {
  std::string name;  // "mlx5_0", "rdmap16s27" (EFA), "irdma0", ...
  std::string node_type;
  std::string fw_ver;
  std::string node_guid;
  std::optional<PciFunction> pci;
  Sriov sriov;
  std::vector<RdmaPort> ports;
};

struct Gpu {
  std::string name;         // "gpu0" in PCI order
  std::string vendor_name;  // "nvidia", "amd"
  std::string model;        // from /proc/driver/nvidia/gpus/*/information when present
  PciFunction pci;
};

// ACS (Access Control Services) of a PCI bridge, from its config space.
struct PciBridge {
  std::string address;
  std::string sysfs_path;
  size_t config_size = 0;    // bytes readable: 64/256 unprivileged, 4096 with root
  bool acs_known = false;    // config space was long enough to walk
  bool acs_capable = false;  // ACS extended capability present
  uint16_t acs_control = 0;
  bool request_redirect = false;   // control bit 2
  bool source_validation = false;  // control bit 0
};

struct NetInterface {
  std::string name;
  std::string type;       // "ether", "infiniband", "loopback", or the ARPHRD number
  std::string operstate;  // "up", "down", "unknown", ...
  std::optional<int> mtu;
  std::string pci;                     // PCI address of the backing device, "" for virtual ones
  std::optional<int> dev_port;         // 0-based port of the device behind it (dev_port)
  std::vector<std::string> addresses;  // live only: "10.0.0.1/24"
  bool addresses_known = false;
  // RoCE ECN (mlx5: ecn/roce_np|roce_rp/enable/<prio>): bit p set = enabled
  // on priority p; nullopt when the directory is absent (not mlx5, or unknown).
  std::optional<uint8_t> ecn_np;  // notification point (the receiver marks CNPs)
  std::optional<uint8_t> ecn_rp;  // reaction point (the sender slows down)
};

using RoutingRule = sys::RoutingRule;
using Route = sys::Route;

// /proc/sys/net/ipv4/conf/<if>/...; nullopt = unreadable.
struct Ipv4Sysctls {
  std::optional<int> rp_filter;
  std::optional<int> arp_ignore;
  std::optional<int> arp_announce;
};

// The network namespace's routing state (live: netlink and /proc/sys; with
// --root: railkit/live.json "routing"). Each part is nullopt / absent when
// it was not read: unknown, which no rule treats as wrong.
struct Routing {
  std::optional<std::vector<RoutingRule>> rules;
  std::optional<std::vector<Route>> routes;
  std::map<std::string, Ipv4Sysctls> sysctls;  // by interface name, plus "all"
};

struct KernelModule {
  std::string name;
  bool loaded = false;
  // /sys/module/<name>/version: out-of-tree drivers (MLNX_OFED's mlx5_core,
  // nvidia) set one, in-tree ones usually do not; nodes of one cluster
  // running different driver builds is what validate compares it for.
  // (Initialised so {name, loaded} aggregates stay -Wextra clean.)
  std::optional<std::string> version = std::nullopt;
};

struct MemoryLimit {
  bool known = false;
  bool unlimited = false;
  uint64_t bytes = 0;  // soft limit when finite
};

struct ProcessFacts {
  std::optional<uint64_t> cap_eff;  // CapEff bitmask
  MemoryLimit memlock;              // "Max locked memory" soft limit
  // The machine's MemTotal (/proc/meminfo): a memlock limit at or above it
  // limits nothing in effect.
  std::optional<uint64_t> mem_total_bytes;
  std::optional<uint64_t> shm_bytes;
  std::string shm_source;  // "mountinfo" or "statvfs"
  Environment env;         // NCCL_*, UCX_*, OMPI_*, PMIX_* only
};

enum class PcieDistance { kPix, kPxb, kPhb, kNode, kSys };
const char* distanceName(PcieDistance distance);

struct GpuNicDistance {
  std::string gpu;  // GPU name or PCI address
  std::string nic;  // RDMA device name
  PcieDistance distance = PcieDistance::kSys;
};

struct Topology {
  std::string source;  // "sysfs" or "hwloc:<file>"
  std::vector<GpuNicDistance> gpu_nic;
};

struct Inventory {
  std::string root;  // "/" or the --root given
  std::vector<RdmaDevice> rdma_devices;
  std::vector<Gpu> gpus;
  std::vector<NetInterface> interfaces;
  std::string default_route_interface;  // /proc/net/route, "" when none or unreadable
  std::vector<KernelModule> modules;
  std::optional<bool> rdma_netns_shared;  // ib_core netns_mode: Y = shared
  bool dev_infiniband_present = false;
  std::vector<std::string> dev_infiniband;  // entries of /dev/infiniband
  ProcessFacts process;
  Routing routing;
  // PFC-enabled priorities (bit p = priority p) by netdev, from DCB netlink
  // (live.json "dcb"); a netdev that is absent is unknown.
  std::map<std::string, uint8_t> pfc_enabled;
  // PFC pause frames by RoCE netdev, from its ethtool statistics (live.json
  // "pfc_pause"); a netdev that is absent is unknown (or has no such counters).
  struct PfcPauseFrames {
    int priority = 0;
    bool received = false;  // rx: pause frames received; tx: sent
    uint64_t frames = 0;
  };
  std::map<std::string, std::vector<PfcPauseFrames>> pfc_pause;
  std::vector<PciBridge> bridges;  // bridges above any GPU or RDMA NIC
  Topology topology;
};

}  // namespace railkit::model
