#pragma once
// The tcp transport's byte streams. Each peer is reached over K connections;
// every connection has two lanes, one per direction. A posted operation is
// cut into segments (see kStripeBytes) queued on its lanes, which the I/O
// threads move (io_thread.h); small ones the posting thread moves itself.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "bench/socket_util.h"
#include "bench/transport.h"

namespace railkit::bench::tcp {

// Stream offsets are cut at this granularity; small enough that a 1 MiB
// pipeline chunk spreads over every connection, large enough to keep the
// per-syscall cost low.
inline constexpr std::size_t kStripeBytes = 256 << 10;
inline constexpr int kMaxConnections = 16;
// A message up to this size is tried on the socket by the posting thread
// first (when the lane is idle): a barrier or a small ping-pong then costs no
// hand-off to an I/O thread. A small receive whose bytes have not arrived yet
// stays with the posting thread ("parked"), which reads it itself in wait():
// handing it to an I/O thread would cost two thread wake-ups per message,
// which doubled small-message latency.
inline constexpr std::size_t kInlineBytes = 64 << 10;

struct Segment {
  RequestId id;
  char* data;
  std::size_t left;
};

// One direction of one connection. `queue` belongs to the lane's I/O
// thread; the poster appends to `inbox` under the thread's mutex.
struct Lane {
  int fd = -1;
  int rank = 0;
  int index = 0;  // the connection's index among the peer's K
  bool send = false;
  std::deque<Segment> queue;
  std::vector<Segment> inbox;
  // Segments handed to the thread and not yet finished. While 0 the thread
  // does not touch the socket, so the posting thread may use it directly.
  std::atomic<std::size_t> owned{0};
  // A small receive kept by the posting thread (only ever touched by it).
  std::optional<Segment> parked;
};

struct Peer {
  std::vector<Lane> sends, recvs;                  // one of each per connection
  std::uint64_t send_offset = 0, recv_offset = 0;  // logical stream positions
  std::atomic<std::int64_t> last_progress{0};      // Clock ticks of the last byte moved
  // Set once the K streams are open and their lanes are with the I/O
  // threads (streams open on first use, see streams.h). Until then a post
  // to the peer only queues on the lanes.
  std::atomic<bool> connected{false};
};

inline std::int64_t ticks(Clock::time_point t) {
  return t.time_since_epoch().count();
}

// Moves the lane's queued segments until the socket would block, appending
// the ids of finished segments to `done_ids`. Sets *moved when a byte moved.
// Returns an error text when the peer is lost.
std::optional<std::string> pumpLane(Lane& lane, bool* moved, std::vector<RequestId>& done_ids);

// Non-blocking send/recv of one segment by the posting thread on an idle
// lane (owned == 0). Sets *moved when a byte moved.
std::optional<std::string> moveSegment(Lane& lane, Segment& segment, bool* moved);

// A failed lane gives up its segments (their requests fail with the transport).
void dropLane(Lane& lane);

}  // namespace railkit::bench::tcp
