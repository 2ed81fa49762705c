#pragma once
// The one accept loop for connections that must introduce themselves before
// they are trusted: the rendezvous hello (rendezvous_server.cc) and the tcp
// data plane's stream hello (data_accept.cc). Every pending connection is
// served at once from one poll(), each with its own short deadline, and at
// most `max_pending` wait (the oldest is dropped for a newcomer), so a
// silent, slow or malformed stranger is dropped without delaying anyone and
// is never fatal. What differs between the two callers is a PendingHandler:
// the greeting sent on accept, the framing of the hello, and other fds to
// watch (the rendezvous's taken slots). Every drop is one rate-limited line,
// "<name>: dropped <ip:port>: <why>".

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "bench/socket_util.h"
#include "core/result.h"

namespace railkit::bench {

// Prints at most `burst` lines per `window`; what it holds back is counted
// and mentioned on the next line it prints.
class RateLimitedLog {
 public:
  RateLimitedLog(std::function<void(const std::string&)> sink, int burst = 5,
                 std::chrono::milliseconds window = std::chrono::seconds(1))
      : sink_(std::move(sink)), burst_(burst), window_(window) {}
  void operator()(const std::string& line, Clock::time_point now = Clock::now());

 private:
  std::function<void(const std::string&)> sink_;
  int burst_;
  std::chrono::milliseconds window_;
  Clock::time_point window_start_{};
  int printed_ = 0;
  std::size_t suppressed_ = 0;
};

// A connection accepted and not yet introduced.
struct PendingConnection {
  int fd = -1;
  std::string address;  // ip:port it came from
  std::string bytes;    // what it has sent so far
  Clock::time_point deadline;
  std::string nonce;  // the greeting's challenge, when the handler sends one
};

// What a handler makes of the bytes a pending connection has sent so far.
struct HelloVerdict {
  enum Kind { kWait, kDrop, kTaken } kind = kWait;
  std::string why;  // kDrop: the reason logged
  static HelloVerdict wait() { return {}; }
  static HelloVerdict drop(std::string why) { return {kDrop, std::move(why)}; }
  // The handler now owns the fd.
  static HelloVerdict taken() { return {kTaken, {}}; }
};

class PendingHandler {
 public:
  virtual ~PendingHandler() = default;
  // Greeting: sent once the connection is accepted. Why to drop it, or nothing.
  virtual std::optional<std::string> greet(PendingConnection&) { return std::nullopt; }
  // Framing: at most how many bytes to read now (never past the hello, when
  // what follows it belongs to someone else), then what the bytes amount to.
  virtual std::size_t readLimit(const PendingConnection&) const = 0;
  virtual HelloVerdict onBytes(PendingConnection&) = 0;
  // Why a connection is dropped when its peer closed before its hello, when
  // its per-connection deadline passed, or when it was the oldest of too
  // many waiting; each may first tell the peer (a refusal line).
  virtual std::string closedWhy(const PendingConnection&) const = 0;
  virtual std::string expiredWhy(PendingConnection&) = 0;
  virtual std::string evictedWhy(PendingConnection&) = 0;
  // Slot watching: fds polled (POLLIN | POLLRDHUP) next to the pending
  // ones, handed to onWatched when they wake; served before the hellos.
  virtual std::vector<int> watched() const { return {}; }
  virtual void onWatched(int) {}
  // Whether to go on serving (checked before every round).
  virtual bool wantsMore() = 0;
};

struct PendingServerOptions {
  std::string name;                               // "rendezvous": the log lines' prefix
  std::chrono::milliseconds hello_timeout{2000};  // per connection
  std::size_t max_pending = 64;
  bool nonblocking = false;  // accepted fds stay non-blocking
  int stop_fd = -1;          // polled with the listener: wakes the loop to re-check wantsMore
  std::function<void(const std::string&)> notice;  // one line, no newline
};

class PendingServer {
 public:
  PendingServer(int listener, PendingServerOptions options, PendingHandler& handler);
  ~PendingServer();
  PendingServer(const PendingServer&) = delete;
  PendingServer& operator=(const PendingServer&) = delete;

  // Serves until the handler wants no more. kTimeout at `deadline` (the
  // caller says what was missing); every pending fd is closed on return.
  Status serve(Clock::time_point deadline);
  // The rate-limited notice, for the handler's own lines.
  void log(const std::string& line) { log_(line); }

 private:
  void drop(std::size_t index, const std::string& why);
  void expire(Clock::time_point now);
  void readFrom(int fd);
  void acceptOne(Clock::time_point deadline);

  int listener_;
  PendingServerOptions o_;
  PendingHandler& handler_;
  RateLimitedLog log_;
  std::vector<PendingConnection> pending_;
};

}  // namespace railkit::bench
