#include "bench/rendezvous_server.h"

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>

#include "bench/bootstrap.h"
#include "bench/job_token.h"
#include "bench/rendezvous.h"

namespace railkit::bench {

void RateLimitedLog::operator()(const std::string& line, Clock::time_point now) {
  if (!sink_) return;
  if (now - window_start_ >= window_) {
    window_start_ = now;
    printed_ = 0;
  }
  if (printed_ >= burst_) {
    ++suppressed_;
    return;
  }
  ++printed_;
  if (suppressed_ == 0) {
    sink_(line);
  } else {
    sink_(line + " (" + std::to_string(suppressed_) + " similar line(s) held back)");
    suppressed_ = 0;
  }
}

namespace {

constexpr std::size_t kMaxHelloLine = 2 * Bootstrap::kMaxBlobBytes + 1024;

struct Pending {
  int fd = -1;
  std::string address;
  std::string nonce;
  std::string buffer;
  Clock::time_point deadline;
};

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

class HelloServer {
 public:
  HelloServer(int listener, const HelloServerOptions& o, Clock::time_point deadline)
      : listener_(listener), deadline_(deadline), o_(o), log_([this](const std::string& line) {
          if (o_.notice) o_.notice(line);
        }) {
    slots_.assign(static_cast<std::size_t>(o_.size), Arrival{});
    seen_.assign(static_cast<std::size_t>(o_.size), false);
    missing_ = o_.size - 1;
  }
  ~HelloServer() {
    for (auto& p : pending_) closeFd(p.fd);
    if (!done_) {
      for (auto& s : slots_) closeFd(s.fd);
    }
  }

  Result<std::vector<Arrival>> run() {
    const auto deadline = deadline_;
    while (missing_ > 0) {
      auto now = Clock::now();
      if (now >= deadline) return makeError(ErrorCode::kTimeout, missingRanks());
      expire(now);
      std::vector<pollfd> fds;
      fds.push_back({listener_, POLLIN, 0});
      for (const auto& p : pending_) fds.push_back({p.fd, POLLIN, 0});
      std::vector<int> slot_rank;
      for (int r = 1; r < o_.size; ++r) {
        if (slots_[static_cast<std::size_t>(r)].fd < 0) continue;
        fds.push_back({slots_[static_cast<std::size_t>(r)].fd, static_cast<short>(POLLIN | POLLRDHUP), 0});
        slot_rank.push_back(r);
      }
      auto wake = deadline;
      for (const auto& p : pending_) wake = std::min(wake, p.deadline);
      auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(wake - now).count();
      int rc = poll(fds.data(), fds.size(), static_cast<int>(std::clamp<long long>(ms, 0, 1000)));
      if (rc < 0 && errno != EINTR) return makeError(ErrorCode::kIo, "poll failed at the rendezvous");
      if (rc <= 0) continue;
      // Slots first: a rank that left frees its slot before a hello for it is read.
      for (std::size_t i = 0; i < slot_rank.size(); ++i) {
        if (fds[1 + pending_.size() + i].revents != 0) checkSlot(slot_rank[i]);
      }
      std::vector<int> ready;
      for (std::size_t i = 0; i < pending_.size(); ++i) {
        if (fds[1 + i].revents != 0) ready.push_back(pending_[i].fd);
      }
      for (int fd : ready) readFrom(fd);
      if (fds[0].revents != 0) acceptOne();
      // The set is complete only with every holder still connected: one
      // that left (a stranger that said hello and went) frees its slot.
      if (missing_ == 0) {
        for (int r = 1; r < o_.size; ++r) checkSlot(r);
      }
    }
    done_ = true;
    return slots_;
  }

 private:
  void drop(std::size_t index, const std::string& why) {
    log_("rendezvous: dropped " + pending_[index].address + ": " + why);
    closeFd(pending_[index].fd);
    pending_.erase(pending_.begin() + static_cast<std::ptrdiff_t>(index));
  }

  std::size_t indexOf(int fd) const {
    for (std::size_t i = 0; i < pending_.size(); ++i) {
      if (pending_[i].fd == fd) return i;
    }
    return pending_.size();
  }

  void expire(Clock::time_point now) {
    for (std::size_t i = pending_.size(); i-- > 0;) {
      if (now < pending_[i].deadline) continue;
      sendLine(pending_[i].fd,
               "RAILKIT-RDV-REFUSED again: no complete hello within the per-connection deadline");
      drop(i, pending_[i].buffer.empty() ? "sent no hello within the per-connection deadline"
                                         : "incomplete hello within the per-connection deadline");
    }
  }

  void acceptOne() {
    int fd = accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) return;
    if (pending_.size() >= std::max<std::size_t>(1, o_.max_pending)) {
      // The oldest may be a real rank on a slow link: told to try again, it does.
      sendLine(pending_[0].fd, "RAILKIT-RDV-REFUSED again: rank 0 is busy with too many connections");
      drop(0, "too many connections waiting to say hello (oldest dropped)");
    }
    Pending p;
    p.fd = fd;
    p.address = peerAddress(fd);
    p.deadline = std::min(Clock::now() + o_.hello_timeout, deadline_);
    auto nonce = randomBytes(kRendezvousNonceBytes);
    if (!nonce) {
      log_("rendezvous: dropped " + p.address + ": " + nonce.error().message);
      closeFd(fd);
      return;
    }
    p.nonce = *nonce;
    sendLine(fd, formatRendezvousNonce(p.nonce));
    pending_.push_back(std::move(p));
  }

  void readFrom(int fd) {
    std::size_t i = indexOf(fd);
    if (i == pending_.size()) return;
    Pending& p = pending_[i];
    char buf[4096];
    ssize_t n = ::recv(fd, buf, sizeof buf, MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
    if (n <= 0) {
      drop(i, p.buffer.empty() ? "closed without a hello" : "closed in the middle of a hello");
      return;
    }
    p.buffer.append(buf, static_cast<std::size_t>(n));
    auto nl = p.buffer.find('\n');
    if (nl == std::string::npos) {
      if (p.buffer.size() > kMaxHelloLine)
        drop(i, "hello longer than " + std::to_string(kMaxHelloLine) + " bytes");
      return;
    }
    if (nl + 1 != p.buffer.size()) {
      drop(i, "sent more than one line before the bootstrap reply");
      return;
    }
    p.buffer.pop_back();
    auto hello = parseRendezvousHello(p.buffer);
    if (!hello) {
      drop(i, hello.error().message);
      return;
    }
    auto why = refuseHello(*hello, HelloExpectation{o_.job_id, o_.size, o_.token, p.nonce});
    if (why) {
      sendLine(fd, "RAILKIT-RDV-REFUSED " + *why);
      drop(i, "hello for rank " + std::to_string(hello->rank) + ": " + *why);
      return;
    }
    Arrival& slot = slots_[static_cast<std::size_t>(hello->rank)];
    if (slot.fd >= 0 && !hungUp(slot.fd)) {
      std::string why_taken = "rank " + std::to_string(hello->rank) + " already joined from " + slot.address;
      sendLine(fd, "RAILKIT-RDV-REFUSED again: slot taken: " + why_taken);
      drop(i, "hello for rank " + std::to_string(hello->rank) + ": " + why_taken + " (still connected)");
      return;
    }
    if (slot.fd >= 0) {
      log_("rendezvous: rank " + std::to_string(hello->rank) + " from " + slot.address +
           " has closed; its slot goes to " + p.address);
      closeFd(slot.fd);
    } else {
      --missing_;
    }
    slot = Arrival{fd, p.address, std::move(hello->blob)};
    seen_[static_cast<std::size_t>(hello->rank)] = true;
    pending_.erase(pending_.begin() + static_cast<std::ptrdiff_t>(i));
  }

  void checkSlot(int rank) {
    Arrival& slot = slots_[static_cast<std::size_t>(rank)];
    if (!hungUp(slot.fd)) return;
    log_("rendezvous: rank " + std::to_string(rank) + " from " + slot.address +
         " closed or spoke before the bootstrap completed; its slot is free again");
    closeFd(slot.fd);
    slot = Arrival{};
    ++missing_;
  }

  // "2" or "2 (1 arrived but left)": the ranks never seen come first, as a
  // rank that gave up at its own deadline closes just before rank 0's.
  std::string missingRanks() const {
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

  int listener_;
  Clock::time_point deadline_;
  const HelloServerOptions& o_;
  RateLimitedLog log_;
  std::vector<Pending> pending_;
  std::vector<Arrival> slots_;
  std::vector<bool> seen_;  // ranks that said hello at some point
  int missing_ = 0;
  bool done_ = false;
};

}  // namespace

Result<std::vector<Arrival>> serveHellos(int listener, const HelloServerOptions& options,
                                         Clock::time_point deadline) {
  HelloServer server(listener, options, deadline);
  return server.run();
}

}  // namespace railkit::bench
