#pragma once
// The ucx backend: one UCP worker per rank, one endpoint per peer created
// from the worker addresses the bootstrap's allgather carries, and the tag
// API for messages (see ucx_config.h for tags and settings). Sends and
// receives hand the caller's buffers to UCP as they are: UCP picks eager or
// rendezvous (zero-copy where the transport allows it) and nothing is staged
// here. On InfiniBand/RoCE this is RDMA; on plain Ethernet UCX's tcp
// transport. Endpoints use peer error handling, and every wait has the stall
// deadline from TransportOptions, so a dead or unreachable peer is an error
// (kPeerLost / kTimeout naming rank, host and interface), never a hang.

#include <memory>

#include "bench/transport.h"

namespace railkit::bench {

Result<std::unique_ptr<Transport>> makeUcxTransport(Bootstrap& bootstrap, const TransportOptions& options);

}  // namespace railkit::bench
