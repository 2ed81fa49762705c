#pragma once
// Rank 0's side of the rendezvous hello (wire format in rendezvous.h), on
// the pending-connection server (pending_server.h): each connection gets its
// nonce as soon as it is accepted and its own short deadline for the hello,
// and at most `max_pending` wait at a time (the oldest is dropped for a
// newcomer), so a silent, slow or malformed stranger is dropped without
// delaying any rank. Nothing a stranger sends is fatal:
//   - a foreign, malformed, wrong-job or (with a token) unauthenticated
//     hello is dropped;
//   - without a token the first live hello for a rank holds its slot; a
//     second hello for it is refused while the holder is connected, and
//     takes the slot once the holder has closed;
//   - a rank that disconnects before every rank has arrived frees its slot.
// Every drop is reported through `notice`, rate-limited.

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "bench/pending_server.h"
#include "bench/socket_util.h"
#include "core/result.h"

namespace railkit::bench {

struct HelloServerOptions {
  std::string job_id;
  int size = 1;
  std::string token;                              // empty: no job token
  std::chrono::milliseconds hello_timeout{5000};  // per connection
  std::size_t max_pending = 64;
  std::function<void(const std::string&)> notice;  // one line, no newline
};

struct Arrival {
  int fd = -1;
  std::string address;  // ip:port it came from
  std::string blob;
};

// Serves hellos on `listener` until ranks 1..size-1 are all connected, and
// returns them indexed by rank (slot 0 unused). kTimeout at `deadline` with
// the missing ranks as the message ("1,3"); every fd is closed then.
Result<std::vector<Arrival>> serveHellos(int listener, const HelloServerOptions& options,
                                         Clock::time_point deadline);

}  // namespace railkit::bench
