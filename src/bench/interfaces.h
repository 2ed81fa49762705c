#pragma once
// Picking the control and data interfaces. Specs use NCCL_SOCKET_IFNAME
// syntax (core/name_list.h). The data plane never uses the control
// interface unless nothing else was named (then the caller warns).

#include <optional>
#include <string>
#include <vector>

#include "core/file_root.h"
#include "core/result.h"
#include "model/inventory.h"

namespace railkit::bench {

struct NetInterface {
  std::string name;
  std::string address;  // IPv4
};

// IPv4 interfaces that are up, in system order.
std::vector<NetInterface> listInterfaces();
// The first interface selected by `spec`; kNotFound naming the spec and the candidates.
Result<NetInterface> selectInterface(const std::vector<NetInterface>& all, const std::string& spec,
                                     const char* role);
// The interface whose address the kernel would use to reach `host`.
Result<NetInterface> interfaceRouting(const std::vector<NetInterface>& all, const std::string& host);
// Every interface `spec` selects (the data NICs of this node), in order.
std::vector<std::string> selectedNames(const std::vector<NetInterface>& all, const std::string& spec);

// What a data interface's link can carry, for --expect-line-rate and
// NCCL_IB_HCA: the rate of the RDMA port whose netdev it is (the mapping
// ibdev2netdev prints; IB and RoCE), else the netdev's own speed (plain
// Ethernet, Mb/s in sysfs). Virtual interfaces (lo, most veth) have neither.
struct DataNic {
  std::string interface;
  std::string rdma_device;  // "mlx5_0"; "" when no RDMA port carries it
  int port = 0;
  std::optional<double> rate_gbps;
  std::string source;  // the sysfs file the rate came from, or why there is none
};
std::vector<DataNic> describeDataNics(const FileRoot& root, const std::vector<std::string>& interfaces);
// "dev:port" of every RDMA port whose netdev is `netdev` (ibdev2netdev's
// pairing), in device order: what UCX_NET_DEVICES needs for RDMA on net1.
std::vector<std::string> rdmaPortsFor(const std::vector<model::RdmaDevice>& devices,
                                      const std::string& netdev);
// The same read from the machine (or snapshot) at `root`; none for lo.
std::vector<std::string> rdmaPortsBehind(const FileRoot& root, const std::string& netdev);

// The node's line rate: the sum over its data NICs. kNotFound names each
// interface without a rate and why.
Result<double> nodeLineRate(const std::vector<DataNic>& nics);

}  // namespace railkit::bench
