#pragma once
// What the nccl backend takes from its options, and how railkit derives
// NCCL's network selection from --data-if. Pure functions of strings, so the
// rules are unit-tested without NCCL:
//   NCCL_SOCKET_IFNAME  = the --data-if spec as given (same syntax), unless the
//                         user set NCCL_SOCKET_IFNAME;
//   NCCL_IB_HCA         = "=dev:port,..." of the RDMA ports whose netdev is a
//                         data interface, unless the user set NCCL_IB_HCA and
//                         only when such ports exist (veth/plain Ethernet: none).
// The CLI puts the result into TransportOptions::env; the backend applies the
// NCCL_* entries with setenv right before NCCL starts (nccl_transport.h).

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/environment.h"

namespace railkit::bench {

// An RDMA port that carries a data interface ("mlx5_0", 1, "ens1f0np0").
struct DataHca {
  std::string device;
  int port = 1;
  std::string netdev;
};

// KEY=VALUE entries to add; empty values are never produced.
std::vector<std::string> deriveNcclEnv(const Environment& env, const std::string& data_spec,
                                       const std::vector<DataHca>& data_hcas);

struct NcclSetup {
  std::vector<std::pair<std::string, std::string>> nccl_env;  // every NCCL_* entry
  std::string library_dir;                                    // RAILKIT_NCCL_LIB (--nccl-lib)
  std::optional<int> local_rank;  // LOCAL_RANK, OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID
};

// Reads TransportOptions::env (KEY=VALUE strings).
NcclSetup ncclSetup(const std::vector<std::string>& options_env);

// Lowercase hex of `bytes` and back (the ncclUniqueId travels as text).
std::string hexEncode(const char* data, std::size_t bytes);
bool hexDecode(std::string_view text, char* out, std::size_t bytes);

}  // namespace railkit::bench
