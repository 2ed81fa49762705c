#pragma once
// Small POSIX socket helpers shared by the rendezvous and the tcp transport:
// every blocking step takes a deadline so nothing waits forever.

#include <chrono>
#include <string>

#include "core/result.h"

namespace railkit::bench {

using Clock = std::chrono::steady_clock;

// Listens on addr:port (port 0 = any); returns the fd and fills the bound port.
Result<int> listenOn(const std::string& addr, int port, int* bound_port);
// Connects to host:port from `bind_addr` (empty = any), retrying refused
// connections until `deadline`.
Result<int> connectTo(const std::string& host, int port, const std::string& bind_addr, Clock::time_point deadline);
// Accepts one connection or fails at the deadline.
Result<int> acceptUntil(int listen_fd, Clock::time_point deadline);
// Data-plane tuning: TCP_NODELAY, big buffers, TCP_USER_TIMEOUT.
void tuneDataSocket(int fd, int user_timeout_ms);
Status sendAll(int fd, const void* data, std::size_t bytes, Clock::time_point deadline);
Status recvAll(int fd, void* data, std::size_t bytes, Clock::time_point deadline);
// Reads one '\n'-terminated line of at most max_bytes.
Result<std::string> recvLine(int fd, std::size_t max_bytes, Clock::time_point deadline);
void closeFd(int fd);
// Name of the local interface holding IPv4 `address` ("?" when none does),
// so messages can say which interface a connection used.
std::string interfaceOfAddress(const std::string& address);
// "ip:port" of the remote end of a connected socket ("?" when unknown).
std::string peerAddress(int fd);

}  // namespace railkit::bench
