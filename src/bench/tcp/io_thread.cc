// The tcp transport's I/O thread (see io_thread.h).
#include "bench/tcp/io_thread.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace railkit::bench::tcp {

IoThread::~IoThread() {
  stop();
  closeFd(wake_fd_);
}

Status IoThread::open() {
  wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake_fd_ < 0) return makeError(ErrorCode::kIo, std::string("eventfd: ") + strerror(errno));
  return okStatus();
}

void IoThread::adopt(Lane* lane) {
  bool waking = false;
  {
    std::lock_guard lock(mu_);
    adopted_.push_back(lane);
    waking = !has_inbox_.exchange(true);
  }
  if (waking) wake();
}

void IoThread::start() {
  thread_ = std::thread([this] { run(); });
}

void IoThread::hand(Lane& lane, std::span<const Segment> segments) {
  if (segments.empty()) return;
  bool waking = false;
  {
    std::lock_guard lock(mu_);
    lane.owned.fetch_add(segments.size(), std::memory_order_relaxed);
    lane.inbox.insert(lane.inbox.end(), segments.begin(), segments.end());
    // Whoever raised has_inbox wakes the thread, which drains the inbox
    // after it wakes: a burst of posts costs one wake-up, not one each.
    waking = !has_inbox_.exchange(true);
  }
  if (waking) wake();
}

void IoThread::stop() {
  stop_.store(true);
  if (wake_fd_ >= 0) wake();
  if (thread_.joinable()) thread_.join();
}

void IoThread::wake() {
  std::uint64_t one = 1;
  [[maybe_unused]] ssize_t n = ::write(wake_fd_, &one, sizeof one);
}

void IoThread::takeInbox() {
  std::lock_guard lock(mu_);
  has_inbox_.store(false);
  lanes_.insert(lanes_.end(), adopted_.begin(), adopted_.end());
  adopted_.clear();
  for (Lane* l : lanes_) {
    l->queue.insert(l->queue.end(), l->inbox.begin(), l->inbox.end());
    l->inbox.clear();
  }
}

void IoThread::run() {
  std::vector<pollfd> fds;
  std::vector<Lane*> polled;
  while (!stop_.load(std::memory_order_relaxed)) {
    if (has_inbox_.load()) takeInbox();
    bool progressed = false;
    fds.clear();
    polled.clear();
    fds.push_back(pollfd{wake_fd_, POLLIN, 0});
    for (Lane* l : lanes_) {
      if (l->queue.empty()) continue;
      bool moved = false;
      done_ids_.clear();
      auto err = pumpLane(*l, &moved, done_ids_);
      if (!done_ids_.empty()) events_.segmentsFinished(done_ids_);
      if (moved) {
        progressed = true;
        events_.peerProgressed(l->rank);
      }
      if (err) {
        events_.laneFailed(l->rank, *err);
        dropLane(*l);
        continue;
      }
      if (!l->queue.empty()) {
        fds.push_back(pollfd{l->fd, static_cast<short>(l->send ? POLLOUT : POLLIN), 0});
        polled.push_back(l);
      }
    }
    if (progressed) continue;
    if (poll(fds.data(), fds.size(), 1000) < 0 && errno != EINTR) {
      events_.laneFailed(-1, std::string("poll: ") + strerror(errno));
      return;
    }
    if (fds[0].revents & POLLIN) {
      std::uint64_t v = 0;
      [[maybe_unused]] ssize_t n = ::read(wake_fd_, &v, sizeof v);
    }
    for (std::size_t i = 1; i < fds.size(); ++i) {
      if (!(fds[i].revents & (POLLERR | POLLNVAL))) continue;
      Lane* l = polled[i - 1];
      int err = 0;
      socklen_t len = sizeof err;
      getsockopt(l->fd, SOL_SOCKET, SO_ERROR, &err, &len);
      events_.laneFailed(l->rank, err != 0 ? strerror(err) : "socket error");
      dropLane(*l);
    }
  }
}

}  // namespace railkit::bench::tcp
