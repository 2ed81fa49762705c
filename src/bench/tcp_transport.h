#pragma once
// The tcp backend: several TCP streams per peer (--connections, striped), bound to the data
// interface's address, TCP_NODELAY, large socket buffers and TCP_USER_TIMEOUT
// so a dead link is noticed while data is unacknowledged. Posted operations
// progress together in waitAll (poll over all sockets), so a ring step's
// send and receive never deadlock; receives land directly in the caller's
// buffer (no staging copy).

#include <memory>

#include "bench/transport.h"

namespace railkit::bench {

Result<std::unique_ptr<Transport>> makeTcpTransport(Bootstrap& bootstrap, const TransportOptions& options);

}  // namespace railkit::bench
