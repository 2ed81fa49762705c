#pragma once
// An I/O thread of the tcp transport: it moves the lanes given to it with
// non-blocking sendmsg/recvmsg straight from/into the callers' buffers and
// sleeps in poll when none can move. The transport hands it segments with
// hand(); the thread reports back through LaneEvents.

#include <atomic>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "bench/tcp/lanes.h"
#include "core/result.h"

namespace railkit::bench::tcp {

// What an I/O thread tells its transport; called on the I/O thread.
class LaneEvents {
 public:
  virtual void segmentsFinished(const std::vector<RequestId>& ids) = 0;
  virtual void peerProgressed(int rank) = 0;
  // rank < 0: a failure that is not one peer's (poll itself failed).
  virtual void laneFailed(int rank, const std::string& why) = 0;

 protected:
  ~LaneEvents() = default;
};

class IoThread {
 public:
  explicit IoThread(LaneEvents& events) : events_(events) {}
  ~IoThread();
  IoThread(const IoThread&) = delete;
  IoThread& operator=(const IoThread&) = delete;

  Status open();  // its wake-up eventfd
  void start();
  // Gives the thread a lane whose stream has just opened, at any time;
  // segments handed to it before are moved from then on.
  void adopt(Lane* lane);
  // Queues segments on one of this thread's lanes: one lock and at most one
  // wake-up for the lot.
  void hand(Lane& lane, std::span<const Segment> segments);
  // Returns once the thread has stopped: it touches no lane or buffer after.
  void stop();

 private:
  void run();
  void wake();
  void takeInbox();

  LaneEvents& events_;
  std::mutex mu_;
  std::vector<Lane*> lanes_;    // the thread's own
  std::vector<Lane*> adopted_;  // under mu_, until the thread takes them
  std::atomic<bool> has_inbox_{false};
  std::atomic<bool> stop_{false};
  int wake_fd_ = -1;
  std::thread thread_;
  std::vector<RequestId> done_ids_;  // run()'s scratch
};

}  // namespace railkit::bench::tcp
