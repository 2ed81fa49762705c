#include "bench/socket_util.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

namespace railkit::bench {
namespace {

constexpr int kListenBacklog = 4096;

int msLeft(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left < 0 ? 0 : static_cast<int>(left > 1000 ? 1000 : left);
}

Result<sockaddr_in> resolve(const std::string& host, int port) {
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(static_cast<uint16_t>(port));
  if (host.empty()) {
    sa.sin_addr.s_addr = htonl(INADDR_ANY);
    return sa;
  }
  if (inet_pton(AF_INET, host.c_str(), &sa.sin_addr) == 1) return sa;
  addrinfo hints{};
  hints.ai_family = AF_INET;
  addrinfo* res = nullptr;
  if (getaddrinfo(host.c_str(), nullptr, &hints, &res) != 0 || res == nullptr) {
    return makeError(ErrorCode::kNotFound, "cannot resolve host '" + host + "'");
  }
  sa.sin_addr = reinterpret_cast<sockaddr_in*>(res->ai_addr)->sin_addr;
  freeaddrinfo(res);
  return sa;
}

Status waitFd(int fd, short events, Clock::time_point deadline, const char* what) {
  while (true) {
    pollfd p{fd, events, 0};
    int rc = poll(&p, 1, msLeft(deadline));
    if (rc > 0) return okStatus();
    if (rc < 0 && errno != EINTR) return makeError(ErrorCode::kIo, std::string("poll: ") + strerror(errno));
    if (Clock::now() >= deadline) return makeError(ErrorCode::kTimeout, std::string("timed out ") + what);
  }
}

// Binds a socket about to connect to its source address, port left to
// connect(): with IP_BIND_ADDRESS_NO_PORT the kernel picks the port per
// destination, so one address can hold more outgoing streams than it has
// ephemeral ports (128 ranks sharing a node's IP dial 65,000 streams by the
// end of a 1024-rank pairs run). bind() with port 0 would take a port for
// the address alone, searching the bind table for a free one on every
// stream (the top of a kernel profile of a 1024-rank run) and failing once they
// ran out.
bool bindSourceAddress(int fd, const sockaddr_in& local) {
  int one = 1;
  setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof one);
  return bind(fd, reinterpret_cast<const sockaddr*>(&local), sizeof local) == 0;
}

}  // namespace

void closeFd(int fd) {
  if (fd >= 0) ::close(fd);
}

std::string interfaceOfAddress(const std::string& address) {
  in_addr want{};
  if (inet_pton(AF_INET, address.c_str(), &want) != 1) return "?";
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return "?";
  std::string name = "?";
  for (ifaddrs* i = list; i != nullptr; i = i->ifa_next) {
    if (i->ifa_addr == nullptr || i->ifa_addr->sa_family != AF_INET) continue;
    if (reinterpret_cast<sockaddr_in*>(i->ifa_addr)->sin_addr.s_addr == want.s_addr) {
      name = i->ifa_name;
      break;
    }
  }
  freeifaddrs(list);
  return name;
}

std::string peerAddress(int fd) {
  sockaddr_in sa{};
  socklen_t len = sizeof sa;
  char text[INET_ADDRSTRLEN] = {};
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&sa), &len) != 0 || sa.sin_family != AF_INET ||
      inet_ntop(AF_INET, &sa.sin_addr, text, sizeof text) == nullptr) {
    return "?";
  }
  return std::string(text) + ":" + std::to_string(ntohs(sa.sin_port));
}

Result<int> listenOn(const std::string& addr, int port, int* bound_port) {
  auto sa = resolve(addr, port);
  if (!sa) return tl::unexpected(sa.error());
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  // A deep backlog (the kernel caps it at net.core.somaxconn): at 1024 ranks
  // every rank connects to rank 0's rendezvous within milliseconds, and a
  // full queue drops SYNs that come back only after a 1 s retransmit.
  if (bind(fd, reinterpret_cast<sockaddr*>(&*sa), sizeof *sa) != 0 || listen(fd, kListenBacklog) != 0) {
    std::string msg = "cannot listen on " + addr + ":" + std::to_string(port) + ": " + strerror(errno);
    closeFd(fd);
    return makeError(ErrorCode::kIo, msg);
  }
  sockaddr_in got{};
  socklen_t len = sizeof got;
  getsockname(fd, reinterpret_cast<sockaddr*>(&got), &len);
  if (bound_port) *bound_port = ntohs(got.sin_port);
  return fd;
}

Result<int> connectTo(const std::string& host, int port, const std::string& bind_addr,
                      Clock::time_point deadline) {
  auto sa = resolve(host, port);
  if (!sa) return tl::unexpected(sa.error());
  std::string last = "no attempt";
  while (Clock::now() < deadline) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (!bind_addr.empty()) {
      auto local = resolve(bind_addr, 0);
      if (!local || !bindSourceAddress(fd, *local)) {
        closeFd(fd);
        return makeError(ErrorCode::kIo, "cannot bind to " + bind_addr + ": " + strerror(errno));
      }
    }
    if (connect(fd, reinterpret_cast<sockaddr*>(&*sa), sizeof *sa) == 0) return fd;
    last = strerror(errno);
    closeFd(fd);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return makeError(ErrorCode::kTimeout,
                   "cannot connect to " + host + ":" + std::to_string(port) + " (" + last + ")");
}

Result<int> connectOnce(const std::string& host, int port, const std::string& bind_addr,
                        Clock::time_point deadline) {
  auto sa = resolve(host, port);
  if (!sa) return tl::unexpected(sa.error());
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return makeError(ErrorCode::kIo, std::string("socket: ") + strerror(errno));
  auto fail = [fd](ErrorCode code, const std::string& why) -> Result<int> {
    closeFd(fd);
    return makeError(code, why);
  };
  if (!bind_addr.empty()) {
    auto local = resolve(bind_addr, 0);
    if (!local || !bindSourceAddress(fd, *local))
      return fail(ErrorCode::kIo, "cannot bind to " + bind_addr + ": " + strerror(errno));
  }
  if (connect(fd, reinterpret_cast<sockaddr*>(&*sa), sizeof *sa) != 0) {
    if (errno != EINPROGRESS) return fail(ErrorCode::kPeerLost, strerror(errno));
    if (auto s = waitFd(fd, POLLOUT, deadline, "connecting"); !s)
      return fail(ErrorCode::kPeerLost, s.error().message);
    int err = 0;
    socklen_t len = sizeof err;
    getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
    if (err != 0) return fail(ErrorCode::kPeerLost, strerror(err));
  }
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

void tuneDataSocket(int fd, int user_timeout_ms, std::size_t buffer_bytes) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (buffer_bytes > 0) {
    int buf = static_cast<int>(buffer_bytes);  // bounded by the flag's check
    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &buf, sizeof buf);
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof buf);
  }
  setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &user_timeout_ms, sizeof user_timeout_ms);
}

Status sendAll(int fd, const void* data, std::size_t bytes, Clock::time_point deadline) {
  auto* p = static_cast<const char*>(data);
  while (bytes > 0) {
    ssize_t n = ::send(fd, p, bytes, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      p += n;
      bytes -= static_cast<std::size_t>(n);
    } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
      if (auto s = waitFd(fd, POLLOUT, deadline, "sending"); !s) return s;
    } else {
      return makeError(ErrorCode::kPeerLost, std::string("send failed: ") + strerror(errno));
    }
  }
  return okStatus();
}

Status recvAll(int fd, void* data, std::size_t bytes, Clock::time_point deadline) {
  auto* p = static_cast<char*>(data);
  while (bytes > 0) {
    ssize_t n = ::recv(fd, p, bytes, MSG_DONTWAIT);
    if (n > 0) {
      p += n;
      bytes -= static_cast<std::size_t>(n);
    } else if (n == 0) {
      return makeError(ErrorCode::kPeerLost, "connection closed by peer");
    } else if (errno == EAGAIN || errno == EINTR) {
      if (auto s = waitFd(fd, POLLIN, deadline, "receiving"); !s) return s;
    } else {
      return makeError(ErrorCode::kPeerLost, std::string("recv failed: ") + strerror(errno));
    }
  }
  return okStatus();
}

Result<std::string> recvLine(int fd, std::size_t max_bytes, Clock::time_point deadline) {
  std::string line;
  char c = 0;
  while (line.size() < max_bytes) {
    if (auto s = recvAll(fd, &c, 1, deadline); !s) return tl::unexpected(s.error());
    if (c == '\n') return line;
    line.push_back(c);
  }
  return makeError(ErrorCode::kInvalidInput, "line longer than " + std::to_string(max_bytes) + " bytes");
}

Result<std::string> LineReader::readLine(std::size_t max_bytes, Clock::time_point deadline) {
  char chunk[64 * 1024];
  while (true) {
    auto nl = buffer_.find('\n', scanned_);
    if (nl != std::string::npos) {
      if (nl >= max_bytes) break;
      std::string line = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      scanned_ = 0;
      return line;
    }
    scanned_ = buffer_.size();
    if (buffer_.size() >= max_bytes) break;
    ssize_t n = ::recv(fd_, chunk, sizeof chunk, MSG_DONTWAIT);
    if (n > 0) {
      buffer_.append(chunk, static_cast<std::size_t>(n));
    } else if (n == 0) {
      return makeError(ErrorCode::kPeerLost, "connection closed by peer");
    } else if (errno == EAGAIN || errno == EINTR) {
      if (auto s = waitFd(fd_, POLLIN, deadline, "receiving"); !s) return tl::unexpected(s.error());
    } else {
      return makeError(ErrorCode::kPeerLost, std::string("recv failed: ") + strerror(errno));
    }
  }
  return makeError(ErrorCode::kInvalidInput, "line longer than " + std::to_string(max_bytes) + " bytes");
}

void setNoDelay(int fd) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

Status ensureFdLimit(std::size_t needed) {
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) != 0 || lim.rlim_cur >= needed) return okStatus();
  if (lim.rlim_max != RLIM_INFINITY && lim.rlim_max < needed) {
    return makeError(ErrorCode::kUsage, "this job needs about " + std::to_string(needed) +
                                            " open files per rank, but the hard limit (ulimit -Hn) is " +
                                            std::to_string(lim.rlim_max));
  }
  lim.rlim_cur = needed;
  if (setrlimit(RLIMIT_NOFILE, &lim) != 0) {
    return makeError(ErrorCode::kUsage, "cannot raise the open-file limit to " + std::to_string(needed) +
                                            ": " + strerror(errno));
  }
  return okStatus();
}

}  // namespace railkit::bench
