#pragma once
// The transport is the only thing a collective algorithm talks to. A Transport
// reaches every peer of the job (tcp opens a peer's streams on the first
// operation posted to it) and moves contiguous byte
// ranges; algorithms (ring all_reduce, chain broadcast, pairwise alltoall) are
// written once against it and never include a concrete backend (tcp, ucx,
// nccl). Operations are posted, not performed: postSend/postRecv return a
// handle at once so an algorithm can keep several chunks in flight (a ring
// pipelines by posting chunk k+1 while reducing chunk k). wait() is always
// bounded: if no byte moves on the connection within the stall timeout it
// returns kTimeout, and a broken connection returns kPeerLost; both messages
// name the peer's rank, host and interface so the CLI can print them as is.
// What a backend can do is data (TransportCaps), not a type switch.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bench/bootstrap.h"
#include "core/result.h"

namespace railkit::bench {

struct TransportCaps {
  bool gpu_memory = false;   // buffers may live in device memory (nccl)
  bool in_place = true;      // send and recv buffers may alias
  bool one_sided = false;    // RDMA-style put/get is native
  bool collectives = false;  // the backend runs whole collectives itself (nccl)
};

// Where a peer is, for messages and JSON.
struct PeerInfo {
  int rank = 0;
  std::string host;       // hostname the peer reported
  std::string interface;  // its data interface name, e.g. "net1"
  std::string address;    // its data-plane address "ip:port"
};

struct TransportOptions {
  std::string data_interface;    // interface name chosen by --data-if
  std::string data_address;      // its IPv4 address (sockets bind here)
  int connections_per_peer = 4;  // tcp: parallel streams per peer
  // tcp: SO_SNDBUF/SO_RCVBUF of each stream (0: leave them to the kernel's
  // autotuning). Small buffers keep the bytes in flight in cache between the
  // sender's copy in and the receiver's copy out (docs/bench.md, Performance).
  std::size_t socket_buffer_bytes = 256 << 10;
  std::size_t chunk_bytes = 1 << 20;  // unit of pipelining
  std::chrono::milliseconds stall_timeout{30000};
  std::string hostname;          // this rank's host, sent to peers
  std::vector<std::string> env;  // KEY=VALUE the backend may honour (UCX_TLS, NCCL_*)
  // "mlx5_0:1" RDMA ports whose netdev is data_interface (ucx: UCX_NET_DEVICES);
  // the caller reads them from its file root (bench::rdmaPortsBehind), so no
  // backend looks at the machine itself. Empty off RDMA hardware.
  std::vector<std::string> data_rdma_ports;
  // ucx: --ucx-lib / RAILKIT_UCX_LIB, searched before the loader path (ucx/ucx_api.h).
  std::string ucx_lib_dir;
};

// An in-flight operation; 0 is never a valid handle.
using RequestId = std::uint64_t;

class Transport {
 public:
  virtual ~Transport() = default;

  virtual const char* name() const = 0;
  virtual TransportCaps caps() const = 0;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual const PeerInfo& peer(int rank) const = 0;

  // Post a send of `bytes` from `data` to `peer`; the buffer must stay valid
  // and unchanged until wait() on the returned id succeeds. What one rank
  // sends to another is one byte stream per direction: receives take its
  // bytes in posting order, whatever the sizes of the sends (one send may
  // fill several receives and the other way round). railkit's collectives
  // rely on it; posting matching sizes is only faster on ucx, which keeps
  // message boundaries. The nccl backend runs collectives itself and matches
  // its point-to-point messages one to one (p2p and pairs post equal sizes).
  virtual Result<RequestId> postSend(int peer, const void* data, std::size_t bytes) = 0;
  // Post a receive of exactly `bytes` into `data` from `peer`.
  virtual Result<RequestId> postRecv(int peer, void* data, std::size_t bytes) = 0;
  // Block until the request completes, the stall timeout passes without any
  // progress (kTimeout) or the peer is lost (kPeerLost). A failed wait ends
  // the transport: every other posted operation is abandoned and no posted
  // buffer is touched after it returns, so the algorithm may free them at
  // once; later posts and waits fail with the same error.
  virtual Status wait(RequestId id) = 0;
  // Waits for all ids (progressing all of them together).
  virtual Status waitAll(const std::vector<RequestId>& ids);
  // Opens the way to `peer` now instead of on the first post, so a schedule
  // that knows its next partner (pairs) sets it up while it waits anyway.
  // Never needed for correctness; backends that connect up front do nothing.
  virtual Status connect(int /*peer*/) { return okStatus(); }

  // Optional: a backend that runs whole collectives (caps().collectives).
  virtual Status barrier() = 0;
};

// Sends to `to` and receives from `from` at once, a common ring step.
Status sendRecv(Transport& t, int to, const void* send, std::size_t send_bytes, int from, void* recv,
                std::size_t recv_bytes);

// A barrier over point-to-point messages (dissemination: log2(n) rounds of
// one byte), for backends with no barrier of their own (tcp, ucx).
Status disseminationBarrier(Transport& t);

// The names --backend takes (a build may lack ucx and nccl: makeTransport
// then says so).
inline constexpr const char* kBackendNames[] = {"tcp", "ucx", "nccl"};

// Creates the transport named by --backend ("tcp", "ucx", "nccl"), connecting
// to every peer through `bootstrap` (which carries the addresses). kUsage for
// an unknown name, kUnavailable when the backend was not built in or its
// library is missing. Implemented in transport_factory.cc, one line per
// backend; ucx and nccl lines sit behind RAILKIT_HAVE_UCX / RAILKIT_HAVE_NCCL.
Result<std::unique_ptr<Transport>> makeTransport(const std::string& backend, Bootstrap& bootstrap,
                                                 const TransportOptions& options);

}  // namespace railkit::bench
