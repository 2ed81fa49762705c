#include "exporter/server.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <memory>
#include <vector>

#include "core/strings.h"
#include "core/tree_writer.h"
#include "exporter/http.h"
#include "exporter/slots.h"

namespace railkit::exporter {

Result<ListenAddress> parseListen(std::string_view text) {
  auto bad = [&](const char* why) {
    return makeError(ErrorCode::kUsage, "--listen '" + std::string(text) + "': " + why +
                                            " (expected HOST:PORT, e.g. 127.0.0.1:9877 or [::1]:9877)");
  };
  size_t colon = text.rfind(':');
  if (colon == std::string_view::npos) return bad("no port");
  std::string_view host = text.substr(0, colon);
  std::string_view port = text.substr(colon + 1);
  if (startsWith(host, "[")) {
    if (!endsWith(host, "]") || host.size() < 3) return bad("unbalanced brackets");
    host = host.substr(1, host.size() - 2);
  } else if (host.find(':') != std::string_view::npos) {
    return bad("an IPv6 address needs brackets");
  }
  if (host.empty()) return bad("no host (use 0.0.0.0 to listen on every address)");
  auto number = parseUint(port);
  if (!number || *number > 65535) return bad("the port is not a number from 0 to 65535");
  return ListenAddress{std::string(host), static_cast<int>(*number)};
}

namespace {

using Clock = std::chrono::steady_clock;

enum class Phase {
  kReading,    // a request is due: since accept, or since its first byte
  kIdle,       // keep-alive, nothing buffered
  kWriting,    // a response is going out; not read meanwhile
  kLingering,  // answered and shut down for writing; drained until EOF
};

struct Connection {
  UniqueFd fd;
  Phase phase = Phase::kReading;
  // When the current wait began, or a writer's socket last took bytes: its
  // last progress, the eviction order at the cap (exporter/slots.h).
  Clock::time_point since;
  uint64_t serial = 0;  // accept order
  Clock::time_point deadline;
  std::string in;          // received, not yet answered
  bool peer_done = false;  // the client shut down its side
  // The response: head and body go out in one sendmsg where the socket
  // takes them; the body is the cache's shared text, not a copy.
  std::string out_head;
  std::shared_ptr<const std::string> out_body;
  size_t out_total = 0;
  size_t written = 0;
  bool close_after = false;
};

const char* reasonPhrase(int status) {
  switch (status) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 413: return "Content Too Large";
    case 431: return "Request Header Fields Too Large";
    case 501: return "Not Implemented";
    case 505: return "HTTP Version Not Supported";
    default: return "Error";
  }
}

// RFC 9110 5.6.7, spelled out because strftime's %a and %b follow the locale.
std::string httpDate() {
  static constexpr const char* kDays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static constexpr const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                            "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[40];
  std::snprintf(text, sizeof(text), "%s, %02d %s %04d %02d:%02d:%02d GMT", kDays[tm.tm_wday], tm.tm_mday,
                kMonths[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
  return text;
}

struct Response {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::shared_ptr<const std::string> body;
  bool send_body = true;  // false for HEAD: the headers of GET, no body
  bool keep_alive = false;
  int minor_version = 1;
  const char* extra_header = nullptr;  // e.g. "Allow: GET, HEAD"
};

std::string responseHead(const Response& r) {
  std::string head = "HTTP/1.1 " + std::to_string(r.status) + " " + reasonPhrase(r.status) + "\r\n";
  head += "Date: " + httpDate() + "\r\n";
  head += "Content-Type: " + r.content_type + "\r\n";
  head += "Content-Length: " + std::to_string(r.body->size()) + "\r\n";
  if (r.extra_header != nullptr) head += std::string(r.extra_header) + "\r\n";
  if (!r.keep_alive) {
    head += "Connection: close\r\n";
  } else if (r.minor_version == 0) {
    head += "Connection: keep-alive\r\n";
  }
  head += "\r\n";
  return head;
}

Response plainResponse(int status, std::string text) {
  Response r;
  r.status = status;
  r.body = std::make_shared<const std::string>(std::move(text));
  return r;
}

class HttpServer {
 public:
  HttpServer(UniqueFd listener, const MetricsCache& cache, const HttpLimits& limits, size_t max_connections)
      : listener_(std::move(listener)), cache_(cache), limits_(limits), max_connections_(max_connections) {}

  Status run(const std::function<bool()>& should_stop) {
    std::vector<pollfd> fds;
    while (!should_stop()) {
      auto now = Clock::now();
      for (auto& c : connections_)
        if (c->fd && now >= c->deadline) closeNow(*c);
      std::erase_if(connections_, [](const auto& c) { return !c->fd; });

      auto wake = now + std::chrono::milliseconds(100);
      bool accepting = now >= accept_paused_until_;
      if (!accepting) wake = std::min(wake, accept_paused_until_);
      fds.clear();
      fds.push_back({listener_.get(), static_cast<short>(accepting ? POLLIN : 0), 0});
      for (auto& c : connections_) {
        fds.push_back({c->fd.get(), static_cast<short>(c->phase == Phase::kWriting ? POLLOUT : POLLIN), 0});
        wake = std::min(wake, c->deadline);
      }
      auto wait_ms = std::chrono::ceil<std::chrono::milliseconds>(wake - now).count();
      int ready = ::poll(fds.data(), fds.size(), static_cast<int>(std::max<int64_t>(wait_ms, 0)));
      if (ready < 0) {
        if (errno == EINTR) continue;
        return makeError(ErrorCode::kIo,
                         std::string("the HTTP server stopped: poll: ") + std::strerror(errno));
      }
      // fds[i + 1] is connections_[i]: accepting below only appends.
      size_t polled = connections_.size();
      for (size_t i = 0; i < polled; ++i) {
        if (fds[i + 1].revents != 0) advance(*connections_[i]);
      }
      if (fds[0].revents & POLLIN) acceptNew();
    }
    return okStatus();
  }

 private:
  void acceptNew() {
    std::erase_if(connections_, [](const auto& c) { return !c->fd; });
    // Bounded, so that a flood of connects cannot keep the loop from the
    // connections it already has.
    for (int k = 0; k < 256; ++k) {
      int fd = ::accept4(listener_.get(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) {
        if (errno == EINTR || errno == ECONNABORTED) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) return;
        // Out of descriptors (the refresher opens files too) or memory: make
        // room by closing a connection, or with none to close stop accepting
        // for a moment (a readable listener would otherwise spin the loop).
        if ((errno == EMFILE || errno == ENFILE) && evictOne()) continue;
        accept_paused_until_ = Clock::now() + std::chrono::milliseconds(100);
        return;
      }
      UniqueFd accepted(fd);
      if (connections_.size() >= max_connections_ && !evictOne()) continue;  // no slot at all
      int one = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
      auto c = std::make_unique<Connection>();
      c->fd = std::move(accepted);
      c->since = Clock::now();
      c->serial = ++accepted_;
      c->deadline = c->since + limits_.request_deadline;
      connections_.push_back(std::move(c));
      // The request is usually there already, sent right behind the
      // handshake: answer it now rather than one poll later.
      advance(*connections_.back());
    }
  }

  // Closes the connection the policy of exporter/slots.h picks: the one
  // longest without progress. False when there is none.
  bool evictOne() {
    Connection* victim = nullptr;
    for (auto& c : connections_) {
      if (!c->fd) continue;
      if (victim == nullptr || evictsBefore({c->since, c->serial}, {victim->since, victim->serial}))
        victim = c.get();
    }
    if (victim == nullptr) return false;
    closeNow(*victim);
    std::erase_if(connections_, [](const auto& c) { return !c->fd; });
    return true;
  }

  // Closes at once. A connection being written to is reset (SO_LINGER 0):
  // a plain close would leave its unsent bytes with the kernel, which keeps
  // offering them to a client that does not read for minutes after the
  // descriptor is gone, and that memory is what a slow reader costs.
  static void closeNow(Connection& c) {
    if (c.phase == Phase::kWriting) {
      linger reset{1, 0};
      ::setsockopt(c.fd.get(), SOL_SOCKET, SO_LINGER, &reset, sizeof(reset));
    }
    c.fd.reset();
  }

  // Does everything the connection can do now without blocking: read,
  // answer each complete request, write, and again while bytes are
  // buffered (pipelined requests).
  void advance(Connection& c) {
    while (c.fd) {
      if (c.phase == Phase::kWriting) {
        if (!flush(c)) return;
      } else if (c.phase == Phase::kLingering) {
        drain(c);
        return;
      } else {
        receive(c);
        if (!c.fd || !answer(c)) return;
      }
    }
  }

  // Reads what the socket has, up to the most one request may take.
  void receive(Connection& c) {
    const size_t cap = kMaxRequestHead + limits_.max_body;
    while (!c.peer_done && c.in.size() < cap) {
      size_t want = std::min(buffer_.size(), cap - c.in.size());
      ssize_t n = ::recv(c.fd.get(), buffer_.data(), want, 0);
      if (n > 0) {
        if (c.phase == Phase::kIdle) {
          c.phase = Phase::kReading;
          c.since = Clock::now();
          c.deadline = c.since + limits_.request_deadline;
        }
        c.in.append(buffer_.data(), static_cast<size_t>(n));
      } else if (n == 0) {
        c.peer_done = true;
      } else if (errno == EINTR) {
        continue;
      } else {
        if (errno != EAGAIN && errno != EWOULDBLOCK) c.fd.reset();
        return;
      }
    }
  }

  // Starts the response to the buffered request when it is all there; true
  // when it did (the connection is writing).
  bool answer(Connection& c) {
    if (c.in.empty()) {
      if (c.peer_done) c.fd.reset();
      return false;
    }
    auto head = parseRequestHead(c.in);
    if (!head) {
      startWrite(c, plainResponse(400, "bad request: " + head.error().message + "\n"), 1, false);
      return true;
    }
    if (head->refusal != 0) {
      startWrite(c, plainResponse(head->refusal, std::string(reasonPhrase(head->refusal)) + "\n"), 1, false);
      return true;
    }
    if (head->content_length > limits_.max_body) {
      startWrite(c, plainResponse(413, "request body over " + std::to_string(limits_.max_body) + " bytes\n"),
                 1, false);
      return true;
    }
    if (!head->complete || c.in.size() < head->size + head->content_length) {
      // Half a request from a client that has stopped sending never
      // completes: close rather than wait for the deadline.
      if (c.peer_done) c.fd.reset();
      return false;
    }
    Response r = route(*head);
    bool keep_alive = head->keep_alive && !c.peer_done;
    int minor = head->minor_version;
    c.in.erase(0, head->size + head->content_length);
    startWrite(c, std::move(r), minor, keep_alive);
    return true;
  }

  Response route(const RequestHead& head) const {
    bool get = head.method == "GET";
    bool head_only = head.method == "HEAD";
    Response r;
    if (head.path == "/metrics" || head.path == "/healthz") {
      if (!get && !head_only) {
        r = plainResponse(405, "method not allowed\n");
        r.extra_header = "Allow: GET, HEAD";
        return r;
      }
      if (head.path == "/metrics") {
        r.body = cache_.sharedText();
        r.content_type = "text/plain; version=0.0.4; charset=utf-8";
      } else {
        r = plainResponse(200, "ok\n");
        r.content_type = "text/plain";
      }
    } else {
      r = plainResponse(404, "not found\n");
    }
    // HEAD: the headers GET would have, Content-Length included, no body.
    r.send_body = !head_only;
    return r;
  }

  void startWrite(Connection& c, Response r, int minor_version, bool keep_alive) {
    r.minor_version = minor_version;
    r.keep_alive = keep_alive;
    c.out_head = responseHead(r);
    c.out_body = r.send_body ? std::move(r.body) : nullptr;
    c.out_total = c.out_head.size() + (c.out_body ? c.out_body->size() : 0);
    c.written = 0;
    c.close_after = !keep_alive;
    c.phase = Phase::kWriting;
    c.since = Clock::now();
    c.deadline = c.since + limits_.write_deadline;
  }

  // Writes what the socket takes; true when the response is out and the
  // connection is ready for its next request.
  bool flush(Connection& c) {
    while (c.written < c.out_total) {
      iovec parts[2];
      int count = 0;
      if (c.written < c.out_head.size()) {
        parts[count++] = {c.out_head.data() + c.written, c.out_head.size() - c.written};
        if (c.out_body) parts[count++] = {const_cast<char*>(c.out_body->data()), c.out_body->size()};
      } else {
        size_t offset = c.written - c.out_head.size();
        parts[count++] = {const_cast<char*>(c.out_body->data()) + offset, c.out_body->size() - offset};
      }
      msghdr message{};
      message.msg_iov = parts;
      message.msg_iovlen = static_cast<size_t>(count);
      // MSG_NOSIGNAL: a client that has gone is an EPIPE here, not a
      // SIGPIPE that ends the exporter.
      ssize_t n = ::sendmsg(c.fd.get(), &message, MSG_NOSIGNAL);
      if (n > 0) {
        c.written += static_cast<size_t>(n);
        c.since = Clock::now();  // not stalled: see evictOne
      } else if (n == 0) {
        return false;  // nothing taken; POLLOUT says when it will be
      } else if (errno == EINTR) {
        continue;
      } else {
        if (errno != EAGAIN && errno != EWOULDBLOCK) c.fd.reset();
        return false;
      }
    }
    c.out_head.clear();
    c.out_body.reset();
    auto now = Clock::now();
    c.since = now;
    if (c.close_after) {
      // Closing with unread request bytes would send a reset, and the
      // client's kernel may then drop the response before it is read: shut
      // down our side and drain theirs until they close or linger ends.
      ::shutdown(c.fd.get(), SHUT_WR);
      c.in.clear();
      c.phase = Phase::kLingering;
      c.deadline = now + limits_.linger;
      return true;
    }
    c.phase = c.in.empty() ? Phase::kIdle : Phase::kReading;
    c.deadline = now + (c.in.empty() ? limits_.idle_deadline : limits_.request_deadline);
    return true;
  }

  void drain(Connection& c) {
    for (;;) {
      ssize_t n = ::recv(c.fd.get(), buffer_.data(), buffer_.size(), 0);
      if (n > 0) continue;
      if (n < 0 && errno == EINTR) continue;
      if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) c.fd.reset();
      return;
    }
  }

  UniqueFd listener_;
  const MetricsCache& cache_;
  const HttpLimits limits_;
  const size_t max_connections_;
  std::vector<std::unique_ptr<Connection>> connections_;
  Clock::time_point accept_paused_until_;
  uint64_t accepted_ = 0;
  std::array<char, 16384> buffer_{};
};

// Binds the first address `host` resolves to that takes it.
Result<UniqueFd> bindListener(const ListenAddress& address, const HttpLimits& limits, int& bound_port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* found = nullptr;
  std::string port = std::to_string(address.port);
  auto cannot = [&] {
    return makeError(ErrorCode::kIo, "cannot listen on " + address.host + ":" + port +
                                         " (address in use, or not one of this machine's)");
  };
  if (::getaddrinfo(address.host.c_str(), port.c_str(), &hints, &found) != 0) return cannot();
  std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> list(found, &::freeaddrinfo);
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    UniqueFd fd(::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol));
    if (!fd) continue;
    // SO_REUSEADDR lets a restarted exporter bind while the old one's
    // connections linger in TIME_WAIT. Not SO_REUSEPORT: with it a second
    // exporter on the same port binds too and the kernel splits the scrapes.
    int yes = 1;
    ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    // Set on the listener so that every accepted socket has them from its
    // handshake on (the receive buffer sizes the window offered there).
    ::setsockopt(fd.get(), SOL_SOCKET, SO_SNDBUF, &limits.socket_send_buffer, sizeof(int));
    ::setsockopt(fd.get(), SOL_SOCKET, SO_RCVBUF, &limits.socket_receive_buffer, sizeof(int));
    if (::bind(fd.get(), a->ai_addr, a->ai_addrlen) != 0 || ::listen(fd.get(), SOMAXCONN) != 0) continue;
    sockaddr_storage local{};
    socklen_t length = sizeof(local);
    if (::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&local), &length) != 0) continue;
    bound_port = ntohs(local.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&local)->sin6_port
                                                   : reinterpret_cast<sockaddr_in*>(&local)->sin_port);
    return fd;
  }
  return cannot();
}

// The connection cap, kept clear of the descriptor limit: the refresher and
// --pods open files and sockets of their own while the server runs.
size_t connectionCap(size_t wanted) {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return wanted;
  size_t room = limit.rlim_cur > 128 ? static_cast<size_t>(limit.rlim_cur) - 64 : 16;
  return std::max<size_t>(1, std::min(wanted, room));
}

}  // namespace

Status serve(const ListenAddress& address, const MetricsCache& cache,
             const std::function<bool()>& should_stop,
             const std::function<void(const ListenAddress&)>& on_listening) {
  return serve(address, cache, should_stop, on_listening, HttpLimits{});
}

Status serve(const ListenAddress& address, const MetricsCache& cache,
             const std::function<bool()>& should_stop,
             const std::function<void(const ListenAddress&)>& on_listening, const HttpLimits& limits) {
  int port = 0;
  auto listener = bindListener(address, limits, port);
  if (!listener) return tl::unexpected(listener.error());
  ListenAddress bound = address;
  bound.port = port;
  on_listening(bound);
  HttpServer server(std::move(*listener), cache, limits, connectionCap(limits.max_connections));
  return server.run(should_stop);
}

}  // namespace railkit::exporter
