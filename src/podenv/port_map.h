#pragma once
// Which RDMA port is behind a network interface, and which GID of a RoCE
// port carries that interface's IPv4 address, seen from inside the pod.
//
// An interface is mapped the way ibdev2netdev and the kernel tie them:
//  1. its /sys/class/net/IF/device is the function (PCI, or an SF's
//     auxiliary device) that also holds an RDMA device: a PF, an SR-IOV VF
//     renamed net1 in the pod, or an IPoIB child of a PF. The port is the one
//     whose netdev it is, else the one its dev_port names, else the only one;
//  2. otherwise the RoCE GID tables: a macvlan over a shared RoCE device
//     (rdma-shared mode) has no device link, but the kernel adds its
//     addresses to the parent port's GID table with gid_attrs/ndevs naming it.
//     Other pods' macvlans may carry the same name on the same or another
//     device, so when the interface's addresses are known only GIDs holding
//     one of them count.

#include <optional>
#include <string>

#include "model/inventory.h"

namespace railkit::podenv {

struct PortOfInterface {
  const model::RdmaDevice* device = nullptr;  // null when not found
  const model::RdmaPort* port = nullptr;
  std::string mapped_by;  // "device" (sysfs device link) or "gid" (GID table ndevs)
  std::string problem;    // why not found: "absent", "no RDMA device behind it", ...
  bool absent = false;    // the interface itself is not in the pod
};

PortOfInterface findPortOfInterface(const model::Inventory& inventory, const std::string& ifname);

struct GidChoice {
  std::optional<int> index;
  std::string note;  // why none, or what was uncertain; "" when clear
};

// The RoCE v2 GID of `port` whose address is IPv4-mapped (::ffff:a.b.c.d) and
// belongs to `ifname` (ndevs), holding one of `ifc`'s addresses when those are
// known. `ifc` may be null (an --hca port whose netdev is not in the pod).
GidChoice ipv4RoceV2Gid(const model::RdmaPort& port, const std::string& ifname,
                        const model::NetInterface* ifc);

// "0000:0000:0000:0000:0000:ffff:0a0a:0301" -> "10.10.3.1"; nullopt when the
// GID is not IPv4-mapped.
std::optional<std::string> ipv4OfGid(const std::string& gid);

const model::NetInterface* findInterface(const model::Inventory& inventory, const std::string& name);

}  // namespace railkit::podenv
