#pragma once
// Picking the control and data interfaces. Specs use NCCL_SOCKET_IFNAME
// syntax (core/name_list.h). The data plane never uses the control
// interface unless nothing else was named (then the caller warns).

#include <optional>
#include <string>
#include <vector>

#include "core/result.h"

namespace railkit::bench {

struct NetInterface {
  std::string name;
  std::string address;  // IPv4
};

// IPv4 interfaces that are up, in system order.
std::vector<NetInterface> listInterfaces();
// The first interface selected by `spec`; kNotFound naming the spec and the candidates.
Result<NetInterface> selectInterface(const std::vector<NetInterface>& all, const std::string& spec, const char* role);
// The interface whose address the kernel would use to reach `host`.
Result<NetInterface> interfaceRouting(const std::vector<NetInterface>& all, const std::string& host);

}  // namespace railkit::bench
