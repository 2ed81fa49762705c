#pragma once
// The HTTP side of `railkit exporter` (cpp-httplib): /metrics serves the
// MetricsCache's text in the Prometheus text format, /healthz answers "ok".
// The server listens only on the address it is given.

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

// Binds, calls `on_listening` with the bound address, then serves until
// `should_stop` returns true (polled every 100 ms) or the server fails.
// kIo when the address cannot be bound (in use, not ours).
Status serve(const ListenAddress& address, const MetricsCache& cache,
             const std::function<bool()>& should_stop,
             const std::function<void(const ListenAddress&)>& on_listening);

}  // namespace railkit::exporter
