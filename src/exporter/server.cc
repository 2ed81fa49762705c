#include "exporter/server.h"

#include <httplib.h>
#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "core/strings.h"

namespace railkit::exporter {

Result<ListenAddress> parseListen(std::string_view text) {
  auto bad = [&](const char* why) {
    return makeError(ErrorCode::kUsage, "--listen '" + std::string(text) + "': " + why +
                                            " (expected HOST:PORT, e.g. 127.0.0.1:9877 or [::1]:9877)");
  };
  size_t colon = text.rfind(':');
  if (colon == std::string_view::npos) return bad("no port");
  std::string_view host = text.substr(0, colon);
  std::string_view port = text.substr(colon + 1);
  if (startsWith(host, "[")) {
    if (!endsWith(host, "]") || host.size() < 3) return bad("unbalanced brackets");
    host = host.substr(1, host.size() - 2);
  } else if (host.find(':') != std::string_view::npos) {
    return bad("an IPv6 address needs brackets");
  }
  if (host.empty()) return bad("no host (use 0.0.0.0 to listen on every address)");
  auto number = parseUint(port);
  if (!number || *number > 65535) return bad("the port is not a number from 0 to 65535");
  return ListenAddress{std::string(host), static_cast<int>(*number)};
}

Status serve(const ListenAddress& address, const MetricsCache& cache,
             const std::function<bool()>& should_stop,
             const std::function<void(const ListenAddress&)>& on_listening) {
  httplib::Server server;
  // httplib's default sets SO_REUSEPORT, with which a second exporter on the
  // same port binds too and the kernel splits scrapes between the two.
  // SO_REUSEADDR alone still allows a restart while old connections linger.
  server.set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  });
  server.Get("/metrics", [&cache](const httplib::Request&, httplib::Response& res) {
    res.set_content(cache.text(), "text/plain; version=0.0.4; charset=utf-8");
  });
  server.Get("/healthz",
             [](const httplib::Request&, httplib::Response& res) { res.set_content("ok\n", "text/plain"); });
  ListenAddress bound = address;
  if (address.port == 0) {
    bound.port = server.bind_to_any_port(address.host);
    if (bound.port < 0) bound.port = 0;
  } else if (!server.bind_to_port(address.host, address.port)) {
    bound.port = 0;
  }
  if (bound.port == 0)
    return makeError(ErrorCode::kIo, "cannot listen on " + address.host + ":" + std::to_string(address.port) +
                                         " (address in use, or not one of this machine's)");
  on_listening(bound);
  std::atomic<bool> ended{false};
  std::thread listener([&] {
    server.listen_after_bind();
    ended = true;
  });
  // stop() only acts on a server that is already running: one that came
  // before listen_after_bind got going would be lost and the join would hang.
  while (!ended && !(should_stop() && server.is_running()))
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  server.stop();
  listener.join();
  if (!should_stop()) return makeError(ErrorCode::kIo, "the HTTP server stopped unexpectedly");
  return okStatus();
}

}  // namespace railkit::exporter
