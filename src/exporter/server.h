#pragma once
// The HTTP side of `railkit exporter`: /metrics serves the MetricsCache's
// text in the Prometheus text format, /healthz answers "ok". The server
// listens only on the address it is given.
//
// One thread runs a poll() loop over non-blocking sockets, so a client that
// sends slowly or not at all holds a few hundred bytes and a file descriptor,
// never a thread: whatever the other connections do, a scrape whose request
// has arrived is answered in the same pass of the loop. Every connection has
// a deadline for each wait, and at the connection cap a new connection always
// gets a slot: the connection longest without progress (a stalled writer
// included) makes room (exporter/slots.h). A connection holds one response
// at a time (a reference to the cached page) and reads no further request
// meanwhile, so a client that pipelines requests and reads nothing costs a
// slot, its kernel buffers and at most one request's bytes
// (docs/exporter.md, "HTTP").

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "core/result.h"
#include "exporter/cache.h"

namespace railkit::exporter {

struct ListenAddress {
  std::string host;  // "127.0.0.1", "0.0.0.0", "::1" (no brackets)
  int port = 0;      // 0: any free port (the one chosen is reported)
};

inline constexpr const char* kDefaultListen = "127.0.0.1:9877";

// "HOST:PORT" or "[IPV6]:PORT"; kUsage for anything else.
Result<ListenAddress> parseListen(std::string_view text);

// The server's caps and deadlines. The defaults are what `railkit exporter`
// uses; tests shorten them.
struct HttpLimits {
  // From a connection's accept, or from the first byte of a later request on
  // it, until the whole head (and body) has arrived. Prometheus sends its
  // request in one packet; a client that needs longer is dropped.
  std::chrono::milliseconds request_deadline{5000};
  // A keep-alive connection with no request in flight. Longer than the
  // scrape intervals people use (up to 1 min), so Prometheus reuses it.
  std::chrono::milliseconds idle_deadline{120000};
  // To write one response: past Prometheus's own scrape timeout, it is no
  // use to anyone. The connection is then reset, its unsent bytes dropped.
  std::chrono::milliseconds write_deadline{30000};
  // After a response that closes the connection, how long unread request
  // bytes are drained so that closing does not reset the response away.
  std::chrono::milliseconds linger{1000};
  // Open connections; also kept under the file descriptor limit. At the cap
  // a newcomer evicts one (exporter/slots.h).
  size_t max_connections = 512;
  // A request body is read and dropped up to this; longer is 413.
  size_t max_body = 4096;
  // The kernel's buffers of each connection (SO_SNDBUF, SO_RCVBUF; Linux
  // doubles what is asked, for its bookkeeping). Fixed, not autotuned up to
  // 4 MiB: a client that never reads would otherwise have megabytes of
  // pages queued for it in the kernel, and one that pipelines would queue
  // requests in its receive buffer. 128 KiB still sends a 1 MB page in a
  // few round trips.
  int socket_send_buffer = 128 * 1024;
  int socket_receive_buffer = 16 * 1024;
};

// Binds, calls `on_listening` with the bound address, then serves until
// `should_stop` returns true (polled at least every 100 ms) or the server
// fails. kIo when the address cannot be bound (in use, not ours).
Status serve(const ListenAddress& address, const MetricsCache& cache,
             const std::function<bool()>& should_stop,
             const std::function<void(const ListenAddress&)>& on_listening);
Status serve(const ListenAddress& address, const MetricsCache& cache,
             const std::function<bool()>& should_stop,
             const std::function<void(const ListenAddress&)>& on_listening, const HttpLimits& limits);

}  // namespace railkit::exporter
