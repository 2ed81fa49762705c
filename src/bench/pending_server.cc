#include "bench/pending_server.h"

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

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

PendingServer::PendingServer(int listener, PendingServerOptions options, PendingHandler& handler)
    : listener_(listener), o_(std::move(options)), handler_(handler), log_([this](const std::string& line) {
        if (o_.notice) o_.notice(line);
      }) {}

PendingServer::~PendingServer() {
  for (auto& p : pending_) closeFd(p.fd);
}

Status PendingServer::serve(Clock::time_point deadline) {
  while (handler_.wantsMore()) {
    auto now = Clock::now();
    if (now >= deadline) return makeError(ErrorCode::kTimeout, o_.name + ": deadline passed");
    std::vector<pollfd> fds{{listener_, POLLIN, 0}, {o_.stop_fd, POLLIN, 0}};  // poll skips a -1
    auto wake = deadline;
    for (const auto& p : pending_) {
      fds.push_back({p.fd, POLLIN, 0});
      wake = std::min(wake, p.deadline);
    }
    const std::size_t first_watched = fds.size();
    const std::vector<int> watched = handler_.watched();
    for (int fd : watched) fds.push_back({fd, static_cast<short>(POLLIN | POLLRDHUP), 0});
    // Rounded up: waking a fraction of a millisecond early would spin until the deadline.
    auto ms = std::chrono::ceil<std::chrono::milliseconds>(wake - now).count();
    int rc = poll(fds.data(), fds.size(), static_cast<int>(std::clamp<long long>(ms, 0, 1000)));
    if (rc < 0 && errno != EINTR)
      return makeError(ErrorCode::kIo, o_.name + ": poll: " + std::strerror(errno));
    if (rc > 0) {
      // Watched fds first: a rank that left frees its slot before a hello for it is read.
      for (std::size_t i = 0; i < watched.size(); ++i) {
        if (fds[first_watched + i].revents != 0) handler_.onWatched(watched[i]);
      }
      std::vector<int> ready;
      for (std::size_t i = 0; i < pending_.size(); ++i) {
        if (fds[2 + i].revents != 0) ready.push_back(pending_[i].fd);
      }
      for (int fd : ready) readFrom(fd);
      if (fds[0].revents != 0) acceptOne(deadline);
    }
    // Last in the round, so that wantsMore sees what the drops changed.
    expire(Clock::now());
  }
  return okStatus();
}

void PendingServer::drop(std::size_t index, const std::string& why) {
  log_(o_.name + ": dropped " + pending_[index].address + ": " + why);
  closeFd(pending_[index].fd);
  pending_.erase(pending_.begin() + static_cast<std::ptrdiff_t>(index));
}

void PendingServer::expire(Clock::time_point now) {
  for (std::size_t i = pending_.size(); i-- > 0;) {
    if (now >= pending_[i].deadline) drop(i, handler_.expiredWhy(pending_[i]));
  }
}

void PendingServer::readFrom(int fd) {
  auto it = std::find_if(pending_.begin(), pending_.end(), [fd](const auto& p) { return p.fd == fd; });
  if (it == pending_.end()) return;
  auto i = static_cast<std::size_t>(it - pending_.begin());
  char buf[4096];
  std::size_t limit = std::min(sizeof buf, handler_.readLimit(*it));
  ssize_t n = ::recv(fd, buf, limit, MSG_DONTWAIT);
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
  if (n <= 0) {
    drop(i, handler_.closedWhy(*it));
    return;
  }
  it->bytes.append(buf, static_cast<std::size_t>(n));
  HelloVerdict verdict = handler_.onBytes(*it);
  if (verdict.kind == HelloVerdict::kDrop) {
    drop(i, verdict.why);
  } else if (verdict.kind == HelloVerdict::kTaken) {
    pending_.erase(it);
  }
}

void PendingServer::acceptOne(Clock::time_point deadline) {
  int flags = SOCK_CLOEXEC | (o_.nonblocking ? SOCK_NONBLOCK : 0);
  int fd = accept4(listener_, nullptr, nullptr, flags);
  if (fd < 0) return;
  if (pending_.size() >= std::max<std::size_t>(1, o_.max_pending)) drop(0, handler_.evictedWhy(pending_[0]));
  PendingConnection p;
  p.fd = fd;
  p.address = peerAddress(fd);
  p.deadline = std::min(Clock::now() + o_.hello_timeout, deadline);
  if (auto why = handler_.greet(p)) {
    log_(o_.name + ": dropped " + p.address + ": " + *why);
    closeFd(fd);
    return;
  }
  pending_.push_back(std::move(p));
}

}  // namespace railkit::bench
