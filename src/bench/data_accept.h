#pragma once
// The tcp data plane's side of connection setup: a rank accepts the
// connections of the higher ranks on its data listener. Each must open with
// a DataHello naming the rank, the stream index and this rank's cookie (16
// random bytes published only through the bootstrap), so a stranger who
// finds the ephemeral port cannot take a stream. It runs on the
// pending-connection server (pending_server.h), as the rendezvous does: each
// pending connection has its own short deadline (at most `max_pending` wait;
// the oldest is dropped for a newcomer), so a silent or wrong client is
// dropped without delaying the real ones, and is never fatal. With `ack`, a
// taken stream is answered with kDataAck before it carries data, so the
// dialler knows the stream was kept and dials again when it was not.

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

#include "bench/socket_util.h"
#include "core/result.h"

namespace railkit::bench {

inline constexpr std::size_t kDataCookieBytes = 16;
inline constexpr std::int32_t kDataMagic = 0x524b5444;  // "RKTD"
inline constexpr unsigned char kDataAck = 0x06;

struct DataHello {
  std::int32_t magic = kDataMagic;
  std::int32_t rank = -1;
  std::int32_t index = -1;
  std::array<unsigned char, kDataCookieBytes> cookie{};
};

struct DataAcceptOptions {
  std::string cookie;                             // this rank's, kDataCookieBytes bytes
  int expected = 0;                               // connections to accept
  std::chrono::milliseconds hello_timeout{2000};  // per connection
  std::size_t max_pending = 64;
  // Whether a hello with the right cookie is wanted (rank and index in
  // range and not yet taken); `take` then owns the fd.
  std::function<bool(const DataHello&)> wanted;
  std::function<void(int fd, const DataHello&)> take;
  std::function<void(const std::string&)> notice;  // dropped strangers, rate-limited
  bool ack = false;                                // answer a taken stream with kDataAck
  // When set: serve until it reads true, whatever `expected` says (the
  // transport's acceptor thread); `stop_fd`, polled with the listener, is
  // made readable when it is set, so stopping takes no poll timeout.
  const std::atomic<bool>* stop = nullptr;
  int stop_fd = -1;
};

// kTimeout at `deadline` (the caller names the missing peers).
Status acceptDataConnections(int listener, const DataAcceptOptions& options, Clock::time_point deadline);

}  // namespace railkit::bench
