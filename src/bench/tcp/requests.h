#pragma once
// The tcp transport's request bookkeeping, shared by the caller's thread and
// the I/O threads: which posted requests still have segments moving, the
// transport's failure (the first one sticks), and messages a rank sends to
// itself (copied in memory as soon as both sides are posted).

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

#include "bench/tcp/lanes.h"

namespace railkit::bench::tcp {

// The stall rule both of the transport's waits follow: a wait gives up when
// no peer it waits on moved a byte for the stall timeout, counted from the
// later of the wait's start and the peers' last progress.
class StallWatch {
 public:
  explicit StallWatch(std::chrono::milliseconds timeout) : timeout_(timeout), start_(ticks(Clock::now())) {}
  std::int64_t start() const { return start_; }
  // How long to sleep before looking again (1 to 200 ms), or nothing once
  // the peers have stalled. `last_progress` is the latest of their ticks.
  std::optional<std::chrono::milliseconds> nextSleep(std::int64_t last_progress) const;

 private:
  std::chrono::milliseconds timeout_;
  std::int64_t start_;
};

class RequestTable {
 public:
  // `segments` still to move for request `id`, exchanged with `rank`.
  void add(RequestId id, std::size_t segments, int rank);
  void erase(RequestId id);
  bool pending(RequestId id);
  // One segment of each id is done; wakes the waiter when a request is.
  void finish(const std::vector<RequestId>& ids);
  void fail(const Error& why);
  std::optional<Error> failure();
  // A send or receive addressed to this rank itself.
  void postSelf(RequestId id, int self_rank, bool send, char* data, std::size_t bytes);

  // What a waiter is told about the peers it still waits on: `ranks` and
  // the latest progress tick among them.
  using PeerProgress = std::function<std::int64_t(int rank)>;
  using StallError = std::function<Error(const std::vector<int>& ranks)>;
  // Blocks until every id is done, the transport failed, or the stall rule
  // ends the wait. A receive from this rank that no send matches is a bug.
  Status waitAll(std::span<const RequestId> ids, int self_rank, const StallWatch& watch,
                 const PeerProgress& progress, const StallError& stalled);

 private:
  struct Pending {
    std::size_t segments;
    int rank;
  };
  std::mutex mu_;
  std::condition_variable done_;
  std::unordered_map<RequestId, Pending> pending_;
  std::deque<Segment> self_sends_, self_recvs_;
  std::optional<Error> failed_;
};

}  // namespace railkit::bench::tcp
