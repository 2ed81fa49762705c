#pragma once
// PodEnv: the NCCL and UCX settings that match the RDMA devices a pod really
// has. With SR-IOV, DRA and host-device exposure the VF, claimed NIC or PF
// inside the pod has another name than on the host (mlx5_0 on the node is
// mlx5_5 in the pod), so a manifest that pins NCCL_IB_HCA to host names
// silently falls back to sockets. `railkit env` runs at container start and
// computes the settings from the pod's own sysfs instead:
//
//   data interfaces (--data-if, pod-side names) -> RDMA device:port behind
//   each (podenv/port_map.h) -> NCCL_IB_HCA, UCX_NET_DEVICES, and on RoCE the
//   GID index holding each interface's IPv4 address -> NCCL_IB_GID_INDEX.
//
// Only ports that carry traffic (ACTIVE and LinkUp, model::portUsable) are
// exported, the rule doctor checks the lists by: NCCL and UCX skip the
// others, so a DOWN port in the list would only make doctor warn about it.
// A skipped port is a note, or missing when it was asked for by name.
//
// What is missing (an interface absent, one without an RDMA device, an --hca
// device absent, or a named one whose port is down) is listed, never guessed
// around; the CLI decides whether that fails (--check).

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/inventory.h"
#include "podenv/names.h"

namespace railkit::podenv {

struct PodEnvOptions {
  std::string ctrl_if;                // --ctrl-if; "" = default route, else eth0
  std::vector<std::string> data_ifs;  // --data-if; empty = see below
  std::vector<HcaRequest> hcas;       // --hca
  // With neither --data-if nor --hca, every interface that has an RDMA port
  // behind it, except the control interface.
};

struct SelectedPort {
  std::string device;  // "mlx5_5"
  int port = 1;
  std::string netdev;            // the pod-side interface, "" when none (an --hca port)
  std::string link_layer;        // "InfiniBand", "Ethernet", "" when unreadable
  std::string state;             // "ACTIVE", ...
  std::optional<int> gid_index;  // RoCE only
  std::string mapped_by;         // "device", "gid" or "hca"
  std::string name() const { return device + ":" + std::to_string(port); }
};

struct Missing {
  std::string kind;  // "data-if", "hca", "ctrl-if", "rdma"
  std::string name;
  std::string reason;
};

struct PodEnv {
  std::string control_interface;
  std::string control_source;  // "--ctrl-if", "default route", "fallback"
  std::vector<SelectedPort> ports;
  std::vector<std::pair<std::string, std::string>> exports;  // in print order
  std::vector<std::string> notes;
  std::vector<Missing> missing;
};

PodEnv computePodEnv(const model::Inventory& inventory, const PodEnvOptions& options);

// "NCCL_IB_GID_INDEX" etc.: the variable names, in one place.
inline constexpr const char* kNcclIbHca = "NCCL_IB_HCA";
inline constexpr const char* kNcclSocketIfname = "NCCL_SOCKET_IFNAME";
inline constexpr const char* kNcclIbGidIndex = "NCCL_IB_GID_INDEX";
inline constexpr const char* kNcclIbRoceVersionNum = "NCCL_IB_ROCE_VERSION_NUM";
inline constexpr const char* kNcclIbAddrFamily = "NCCL_IB_ADDR_FAMILY";
inline constexpr const char* kUcxNetDevices = "UCX_NET_DEVICES";

}  // namespace railkit::podenv
