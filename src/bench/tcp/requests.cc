// The tcp transport's request bookkeeping (see requests.h).
#include "bench/tcp/requests.h"

#include <algorithm>
#include <cstring>

namespace railkit::bench::tcp {

std::optional<std::chrono::milliseconds> StallWatch::nextSleep(std::int64_t last_progress) const {
  auto last = std::max(start_, last_progress);
  auto idle = Clock::now() - Clock::time_point(Clock::duration(last));
  if (idle >= timeout_) return std::nullopt;
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(timeout_ - idle);
  return std::clamp(left, std::chrono::milliseconds(1), std::chrono::milliseconds(200));
}

void RequestTable::add(RequestId id, std::size_t segments, int rank) {
  std::lock_guard lock(mu_);
  pending_[id] = Pending{segments, rank};
}

void RequestTable::erase(RequestId id) {
  std::lock_guard lock(mu_);
  pending_.erase(id);
}

bool RequestTable::pending(RequestId id) {
  std::lock_guard lock(mu_);
  return pending_.count(id) != 0;
}

void RequestTable::finish(const std::vector<RequestId>& ids) {
  if (ids.empty()) return;
  bool any = false;
  {
    std::lock_guard lock(mu_);
    for (RequestId id : ids) {
      auto it = pending_.find(id);
      if (it != pending_.end() && --it->second.segments == 0) {
        pending_.erase(it);
        any = true;
      }
    }
  }
  if (any) done_.notify_all();
}

void RequestTable::fail(const Error& why) {
  {
    std::lock_guard lock(mu_);
    if (!failed_) failed_ = why;
  }
  done_.notify_all();
}

std::optional<Error> RequestTable::failure() {
  std::lock_guard lock(mu_);
  return failed_;
}

void RequestTable::postSelf(RequestId id, int self_rank, bool send, char* data, std::size_t bytes) {
  std::lock_guard lock(mu_);
  pending_[id] = Pending{1, self_rank};
  (send ? self_sends_ : self_recvs_).push_back(Segment{id, data, bytes});
  while (!self_sends_.empty() && !self_recvs_.empty()) {
    Segment& s = self_sends_.front();
    Segment& r = self_recvs_.front();
    std::size_t n = std::min(s.left, r.left);
    std::memcpy(r.data, s.data, n);
    for (Segment* seg : {&s, &r}) {
      seg->data += n;
      seg->left -= n;
    }
    if (s.left == 0) {
      pending_.erase(s.id);
      self_sends_.pop_front();
    }
    if (r.left == 0) {
      pending_.erase(r.id);
      self_recvs_.pop_front();
    }
  }
}

Status RequestTable::waitAll(std::span<const RequestId> ids, int self_rank, const StallWatch& watch,
                             const PeerProgress& progress, const StallError& stalled) {
  std::unique_lock lock(mu_);
  std::vector<int> ranks;
  while (true) {
    if (failed_) return tl::unexpected(*failed_);
    bool any = false;
    std::int64_t last = watch.start();
    ranks.clear();
    for (RequestId id : ids) {
      auto it = pending_.find(id);
      if (it == pending_.end()) continue;
      any = true;
      int r = it->second.rank;
      if (r == self_rank) continue;
      last = std::max(last, progress(r));
      if (std::find(ranks.begin(), ranks.end(), r) == ranks.end()) ranks.push_back(r);
    }
    if (!any) return okStatus();
    if (ranks.empty()) {
      return makeError(ErrorCode::kInternal,
                       "tcp transport: waiting on a receive from this rank itself that no send matches");
    }
    auto sleep = watch.nextSleep(last);
    if (!sleep) return tl::unexpected(stalled(ranks));
    done_.wait_for(lock, *sleep);
  }
}

}  // namespace railkit::bench::tcp
