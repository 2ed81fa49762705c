#pragma once
// The names `railkit env` writes into shell text and NCCL/UCX lists, and how
// it writes them. Interface and RDMA device names come from the command line
// and from sysfs, which a hostile snapshot (or a CNI that names interfaces
// from user input) controls, so every name is checked before it is used and
// every value is single-quoted.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace railkit::podenv {

// Why `name` cannot be a network interface name, or nullopt when it can.
// The kernel refuses "", ".", "..", more than 15 bytes, '/', ':' and white
// space (dev_valid_name); we also refuse control bytes (they would end a
// shell comment line) and ',' (NCCL's list syntax cannot name it).
std::optional<std::string> netdevNameProblem(std::string_view name);

// Why `name` cannot be an RDMA device name we write into NCCL_IB_HCA /
// UCX_NET_DEVICES, or nullopt when it can: 1..64 bytes of [A-Za-z0-9_.-]
// (every name the drivers give: mlx5_0, rdmap16s27, rocep1s0f0, irdma0).
std::optional<std::string> rdmaNameProblem(std::string_view name);

struct HcaRequest {
  std::string device;
  std::optional<int> port;  // "mlx5_0:1"; nullopt = every port
};

// "--data-if net1,net2": names in order, duplicates dropped. kUsage on a bad
// or empty entry (one line saying which).
Result<std::vector<std::string>> parseInterfaceList(std::string_view text, std::string_view flag);
// "--hca mlx5_0,mlx5_1:1": devices with optional ports. kUsage on a bad entry.
Result<std::vector<HcaRequest>> parseHcaList(std::string_view text);

// Text safe on one `#` comment line: control bytes become '?'.
std::string commentSafe(std::string_view text);

}  // namespace railkit::podenv
