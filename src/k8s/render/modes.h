#pragma once
// Internal to render: one renderer per exposure mode (one file each, listed
// in renderMode's table in modes.cc) and the rail helpers they share. A rail
// is one data interface: every mode gives the pod one attachment per rail,
// named the same on every pod, each with its own address range, so rail i of
// one node talks to rail i of the others.
#include <string>
#include <vector>

#include "k8s/render/parts.h"

namespace railkit::k8s::render {

using Objects = std::vector<RenderedObject>;

// rdma-shared, host-device and host-network: NVIDIA Network Operator.
Result<Objects> renderNetworkOperatorMode(const Profile& profile, PodDecoration& decoration);
// sriov: SR-IOV Network Operator.
Result<Objects> renderSriovMode(const Profile& profile, PodDecoration& decoration);
// rdma-shared and sriov with cni spiderpool: Spiderpool's SpiderMultusConfig
// and SpiderIPPool per rail (mode_spiderpool.cc).
Result<Objects> renderSpiderpoolMode(const Profile& profile, PodDecoration& decoration);
// dra: google/dranet (and the NVIDIA GPU DRA driver with draGpus).
Result<Objects> renderDraMode(const Profile& profile, PodDecoration& decoration);
// gke-tcpxo: GPUDirect-TCPXO on GKE.
Result<Objects> renderTcpxoMode(const Profile& profile, PodDecoration& decoration);

// The address range of rail `rail` (0-based): 192.168.(100+rail).0/24 while
// every node fits with room for restarts, else a /15 per rail in 10/8.
struct RailSubnet {
  std::string cidr;
  int per_node_block = 1;  // addresses each node takes from it (nv-ipam)
};
RailSubnet railSubnet(const Profile& profile, size_t rail);
// Object name of rail `rail`'s network (and its IP pool): <name>-rail<rail>.
std::string railName(const Profile& profile, size_t rail);
// Multus selection of one network per rail, attached as net1..netN in rail
// order; sets the pod-side data interface names to match.
void attachRailNetworks(const Profile& profile, PodDecoration& decoration);
// NCCL_SOCKET_IFNAME on the control interface, the RoCE v2 GID index on roce,
// and NCCL_IB_HCA when the profile names HCAs and `pin_hcas`: only where the
// pod sees the host's RDMA devices under the host's names (rdma-shared,
// host-network). A VF, a moved PF or a claimed NIC is another device or name
// in the pod; there `railkit env` computes NCCL_IB_HCA at container start.
void socketEnv(const Profile& profile, PodDecoration& decoration, bool pin_hcas);
std::string joined(const std::vector<std::string>& list, const std::string& separator = ",");

}  // namespace railkit::k8s::render
