#pragma once
// The pods `railkit env` is tested on, written as sysfs trees by NodeBuilder:
// what each exposure mode really shows inside the pod.
#include <filesystem>
#include <fstream>
#include <string>

#include "support/node_builder.h"

namespace railkit::testing {

inline void writeFileAt(const std::filesystem::path& root, const std::string& rel, const std::string& text) {
  std::filesystem::create_directories((root / rel).parent_path());
  std::ofstream(root / rel, std::ios::binary) << text;
}

// railkit/live.json with the interfaces' addresses (what getifaddrs gives live).
inline void writeAddresses(const std::filesystem::path& root, const std::string& addresses_json) {
  writeFileAt(root, "railkit/live.json", "{\"addresses\": " + addresses_json + "}\n");
}

// /proc/net/route with one default route through `ifname`.
inline void writeDefaultRoute(const std::filesystem::path& root, const std::string& ifname) {
  writeFileAt(root, "proc/net/route",
              "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n" +
                  ifname + "\t00000000\t0101F40A\t0003\t0\t0\t0\t00000000\t0\t0\t0\n" + ifname +
                  "\t0001F40A\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n");
}

inline std::string v4Gid(int a, int b, int c, int d) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x", a, b, c, d);
  return buf;
}

// SR-IOV: the pod holds one VF of the host's mlx5_0, which the pod's kernel
// view names mlx5_5; its netdev was renamed net1 by the CNI. RoCE, IPv4
// 10.10.5.7 on net1 at GID 3 (v2).
inline NodeBuilder sriovVfPod() {
  NodeBuilder node = NodeBuilder::emptyPod();
  NicSpec vf;
  vf.name = "mlx5_5";
  vf.pci.address = "0000:19:00.2";
  vf.pci.host_bridge = "pci0000:17";
  vf.pci.vendor = "0x15b3";
  vf.pci.device = "0x101e";
  vf.pci.class_code = "0x020000";
  vf.pci.driver = "mlx5_core";
  PortSpec port;
  port.link_layer = "Ethernet";
  port.rate = "200 Gb/sec (2X HDR)";
  port.lid = "0x0";
  port.sm_lid = "0x0";
  std::string ll = "fe80:0000:0000:0000:0000:00ff:fe00:0507";
  port.gids = {{0, ll, "IB/RoCE v1", "net1"},
               {1, ll, "RoCE v2", "net1"},
               {2, v4Gid(10, 10, 5, 7), "IB/RoCE v1", "net1"},
               {3, v4Gid(10, 10, 5, 7), "RoCE v2", "net1"}};
  vf.ports = {port};
  node.spec().nics.push_back(vf);
  NetdevSpec net1;
  net1.name = "net1";
  net1.mtu = 9000;
  net1.pci = vf.pci.address;
  node.addNetdev(net1);
  node.spec().uverbs = 1;
  return node;
}

// rdma-shared: every host RoCE device is visible (shared netns mode), the
// host netdevs are not; net1 is a macvlan over ens3f0np0 (mlx5_3) with
// 10.20.0.3. Another pod's macvlan, also named net1, sits on mlx5_4 with
// 10.20.0.9: only the address tells them apart.
inline NodeBuilder macvlanSharedPod() {
  NodeBuilder node = NodeBuilder::healthyRoce();
  std::erase_if(node.spec().netdevs, [](const NetdevSpec& n) { return n.name.rfind("ens", 0) == 0; });
  NetdevSpec net1;
  net1.name = "net1";
  net1.mtu = 9000;
  node.addNetdev(net1);
  auto& mine = node.port("mlx5_3", 1).gids;
  mine.push_back({4, v4Gid(10, 20, 0, 3), "IB/RoCE v1", "net1"});
  mine.push_back({5, v4Gid(10, 20, 0, 3), "RoCE v2", "net1"});
  auto& theirs = node.port("mlx5_4", 1).gids;
  theirs.push_back({4, v4Gid(10, 20, 0, 9), "IB/RoCE v1", "net1"});
  theirs.push_back({5, v4Gid(10, 20, 0, 9), "RoCE v2", "net1"});
  return node;
}

// host-device / host network on RoCE where mlx5_1's IPv4 GIDs sit at 4/5
// (an extra IPv6 address took 2/3): the two ports differ in GID index.
inline NodeBuilder roceDifferentGidIndices() {
  NodeBuilder node = NodeBuilder::healthyRoce();
  auto& gids = node.port("mlx5_1", 1).gids;
  for (auto& g : gids)
    if (g.index == 2 || g.index == 3) {
      g.gid = "fd00:0000:0000:0000:0000:00ff:fe00:0138";
    }
  gids.push_back({4, v4Gid(10, 10, 1, 1), "IB/RoCE v1", "ens1f0np0"});
  gids.push_back({5, v4Gid(10, 10, 1, 1), "RoCE v2", "ens1f0np0"});
  return node;
}

}  // namespace railkit::testing
