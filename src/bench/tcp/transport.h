#pragma once
// The tcp backend: several TCP streams per peer (--connections, striped), bound to the data
// interface's address, TCP_NODELAY, large socket buffers and TCP_USER_TIMEOUT
// so a dead link is noticed while data is unacknowledged. Posted operations
// are moved by I/O threads (separate ones for sending and receiving), so a
// ring step's send and receive never deadlock and keep moving while the
// caller reduces; receives land directly in the caller's buffer (no staging
// copy). Operations addressed to the rank itself are copied in memory.

#include <memory>

#include "bench/transport.h"

namespace railkit::bench {

Result<std::unique_ptr<Transport>> makeTcpTransport(Bootstrap& bootstrap, const TransportOptions& options);

}  // namespace railkit::bench
