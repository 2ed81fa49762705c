#include "bench/rendezvous_server.h"

#include <poll.h>
#include <sys/socket.h>

#include "bench/bootstrap.h"
#include "bench/job_token.h"
#include "bench/rendezvous.h"

namespace railkit::bench {
namespace {

constexpr std::size_t kMaxHelloLine = 2 * Bootstrap::kMaxBlobBytes + 1024;

// Whether the peer of `fd` has closed or reset (or sent anything: a rank
// that has said hello stays quiet until the bootstrap reply).
bool hungUp(int fd) {
  pollfd p{fd, static_cast<short>(POLLIN | POLLRDHUP), 0};
  if (poll(&p, 1, 0) <= 0) return false;
  return (p.revents & (POLLHUP | POLLERR | POLLRDHUP | POLLNVAL | POLLIN)) != 0;
}

void sendLine(int fd, const std::string& line) {
  std::string out = line + "\n";
  ssize_t ignored = ::send(fd, out.data(), out.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  (void)ignored;
}

PendingServerOptions pendingOptions(const HelloServerOptions& o) {
  PendingServerOptions p;
  p.name = "rendezvous";
  p.hello_timeout = o.hello_timeout;
  p.max_pending = o.max_pending;
  p.nonblocking = true;
  p.notice = o.notice;
  return p;
}

// The rendezvous's hooks: the nonce as greeting, one hello line as framing,
// and the taken slots as the watched fds.
class HelloServer final : public PendingHandler {
 public:
  HelloServer(int listener, const HelloServerOptions& o)
      : o_(o), server_(listener, pendingOptions(o), *this) {
    slots_.assign(static_cast<std::size_t>(o_.size), Arrival{});
    seen_.assign(static_cast<std::size_t>(o_.size), false);
    missing_ = o_.size - 1;
  }
  ~HelloServer() override {
    if (!done_) {
      for (auto& s : slots_) closeFd(s.fd);
    }
  }

  Result<std::vector<Arrival>> run(Clock::time_point deadline) {
    auto served = server_.serve(deadline);
    if (!served) {
      if (served.error().code == ErrorCode::kTimeout) return makeError(ErrorCode::kTimeout, missingRanks());
      return makeError(served.error().code, "poll failed at the rendezvous");
    }
    done_ = true;
    return slots_;
  }

  std::optional<std::string> greet(PendingConnection& p) override {
    auto nonce = randomBytes(kRendezvousNonceBytes);
    if (!nonce) return nonce.error().message;
    p.nonce = *nonce;
    sendLine(p.fd, formatRendezvousNonce(p.nonce));
    return std::nullopt;
  }

  std::size_t readLimit(const PendingConnection&) const override { return kMaxHelloLine + 1; }
  HelloVerdict onBytes(PendingConnection& p) override;

  std::string closedWhy(const PendingConnection& p) const override {
    return p.bytes.empty() ? "closed without a hello" : "closed in the middle of a hello";
  }
  std::string expiredWhy(PendingConnection& p) override {
    sendLine(p.fd, "RAILKIT-RDV-REFUSED again: no complete hello within the per-connection deadline");
    return p.bytes.empty() ? "sent no hello within the per-connection deadline"
                           : "incomplete hello within the per-connection deadline";
  }
  std::string evictedWhy(PendingConnection& p) override {
    // The oldest may be a real rank on a slow link: told to try again, it does.
    sendLine(p.fd, "RAILKIT-RDV-REFUSED again: rank 0 is busy with too many connections");
    return "too many connections waiting to say hello (oldest dropped)";
  }

  std::vector<int> watched() const override {
    std::vector<int> fds;
    for (int r = 1; r < o_.size; ++r) {
      if (slots_[static_cast<std::size_t>(r)].fd >= 0) fds.push_back(slots_[static_cast<std::size_t>(r)].fd);
    }
    return fds;
  }
  void onWatched(int fd) override {
    for (int r = 1; r < o_.size; ++r) {
      if (slots_[static_cast<std::size_t>(r)].fd == fd) checkSlot(r);
    }
  }
  // The set is complete only with every holder still connected: one that
  // left (a stranger that said hello and went) frees its slot.
  bool wantsMore() override {
    if (missing_ == 0) {
      for (int r = 1; r < o_.size; ++r) checkSlot(r);
    }
    return missing_ > 0;
  }

 private:
  HelloVerdict takeSlot(PendingConnection& p, RendezvousHello& hello);
  void checkSlot(int rank);
  std::string missingRanks() const;

  const HelloServerOptions& o_;
  PendingServer server_;
  std::vector<Arrival> slots_;
  std::vector<bool> seen_;  // ranks that said hello at some point
  int missing_ = 0;
  bool done_ = false;
};

HelloVerdict HelloServer::onBytes(PendingConnection& p) {
  auto nl = p.bytes.find('\n');
  if (nl == std::string::npos) {
    if (p.bytes.size() > kMaxHelloLine)
      return HelloVerdict::drop("hello longer than " + std::to_string(kMaxHelloLine) + " bytes");
    return HelloVerdict::wait();
  }
  if (nl + 1 != p.bytes.size())
    return HelloVerdict::drop("sent more than one line before the bootstrap reply");
  p.bytes.pop_back();
  auto hello = parseRendezvousHello(p.bytes);
  if (!hello) return HelloVerdict::drop(hello.error().message);
  auto why = refuseHello(*hello, HelloExpectation{o_.job_id, o_.size, o_.token, p.nonce});
  if (why) {
    sendLine(p.fd, "RAILKIT-RDV-REFUSED " + *why);
    return HelloVerdict::drop("hello for rank " + std::to_string(hello->rank) + ": " + *why);
  }
  return takeSlot(p, *hello);
}

HelloVerdict HelloServer::takeSlot(PendingConnection& p, RendezvousHello& hello) {
  Arrival& slot = slots_[static_cast<std::size_t>(hello.rank)];
  if (slot.fd >= 0 && !hungUp(slot.fd)) {
    std::string why_taken = "rank " + std::to_string(hello.rank) + " already joined from " + slot.address;
    sendLine(p.fd, "RAILKIT-RDV-REFUSED again: slot taken: " + why_taken);
    return HelloVerdict::drop("hello for rank " + std::to_string(hello.rank) + ": " + why_taken +
                              " (still connected)");
  }
  if (slot.fd >= 0) {
    server_.log("rendezvous: rank " + std::to_string(hello.rank) + " from " + slot.address +
                " has closed; its slot goes to " + p.address);
    closeFd(slot.fd);
  } else {
    --missing_;
  }
  slot = Arrival{p.fd, p.address, std::move(hello.blob)};
  seen_[static_cast<std::size_t>(hello.rank)] = true;
  return HelloVerdict::taken();
}

void HelloServer::checkSlot(int rank) {
  Arrival& slot = slots_[static_cast<std::size_t>(rank)];
  if (!hungUp(slot.fd)) return;
  server_.log("rendezvous: rank " + std::to_string(rank) + " from " + slot.address +
              " closed or spoke before the bootstrap completed; its slot is free again");
  closeFd(slot.fd);
  slot = Arrival{};
  ++missing_;
}

// "2" or "2 (1 arrived but left)": the ranks never seen come first, as a
// rank that gave up at its own deadline closes just before rank 0's.
std::string HelloServer::missingRanks() const {
  std::string never, left;
  for (int r = 1; r < o_.size; ++r) {
    if (slots_[static_cast<std::size_t>(r)].fd >= 0) continue;
    std::string& list = seen_[static_cast<std::size_t>(r)] ? left : never;
    if (!list.empty()) list.push_back(',');
    list.append(std::to_string(r));
  }
  if (left.empty()) return never;
  if (never.empty()) return left + " (arrived but left)";
  return never + " (and " + left + ", arrived but left)";
}

}  // namespace

Result<std::vector<Arrival>> serveHellos(int listener, const HelloServerOptions& options,
                                         Clock::time_point deadline) {
  HelloServer server(listener, options);
  return server.run(deadline);
}

}  // namespace railkit::bench
