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
Result<int> connectTo(const std::string& host, int port, const std::string& bind_addr,
                      Clock::time_point deadline);
// One connect attempt, non-blocking and bounded by `deadline` (a blocking
// connect to a node that drops SYNs waits the kernel's two minutes). The fd
// comes back blocking. kPeerLost with the reason ("Connection refused").
Result<int> connectOnce(const std::string& host, int port, const std::string& bind_addr,
                        Clock::time_point deadline);
// Data-plane tuning: TCP_NODELAY, big buffers, TCP_USER_TIMEOUT.
void tuneDataSocket(int fd, int user_timeout_ms, std::size_t buffer_bytes);
Status sendAll(int fd, const void* data, std::size_t bytes, Clock::time_point deadline);
Status recvAll(int fd, void* data, std::size_t bytes, Clock::time_point deadline);
// Reads one '\n'-terminated line of at most max_bytes (one recv per byte:
// for a socket that may carry something else after the line).
Result<std::string> recvLine(int fd, std::size_t max_bytes, Clock::time_point deadline);

// Reads '\n'-terminated lines from one socket in blocks, keeping what follows
// a line for the next call: the bootstrap's lines reach megabytes (a node's
// inventory, hex), and one recv per byte cost rank 0 ~15 ms per gathered node.
// Only for a socket whose every byte goes through this reader.
class LineReader {
 public:
  LineReader() = default;
  explicit LineReader(int fd) : fd_(fd) {}
  int fd() const { return fd_; }
  // Bytes already read from the socket and not yet returned as a line.
  bool hasBuffered() const { return buffer_.size() > 0; }
  // The line without its '\n'; kInvalidInput when it reaches max_bytes.
  Result<std::string> readLine(std::size_t max_bytes, Clock::time_point deadline);

 private:
  int fd_ = -1;
  std::string buffer_;
  std::size_t scanned_ = 0;  // bytes of buffer_ known to hold no '\n'
};

// Sets TCP_NODELAY: the bootstrap's short lines (a barrier's "-", a timing)
// would otherwise wait on Nagle for the delayed ACK of the line before (40 ms
// per pairs round).
void setNoDelay(int fd);
// Raises the soft RLIMIT_NOFILE to `needed` when it is lower (never above
// the hard limit): a job of N ranks holds about N sockets in every rank, and
// 1024 is still a common soft default. kUsage when the hard limit is lower.
Status ensureFdLimit(std::size_t needed);
void closeFd(int fd);
// Name of the local interface holding IPv4 `address` ("?" when none does),
// so messages can say which interface a connection used.
std::string interfaceOfAddress(const std::string& address);
// "ip:port" of the remote end of a connected socket ("?" when unknown).
std::string peerAddress(int fd);

}  // namespace railkit::bench
