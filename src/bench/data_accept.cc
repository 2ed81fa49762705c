#include "bench/data_accept.h"

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <vector>

#include "bench/job_token.h"
#include "bench/rendezvous_server.h"

namespace railkit::bench {
namespace {

struct Pending {
  int fd = -1;
  std::string address;
  std::string bytes;
  Clock::time_point deadline;
};

// Reads what has arrived of a pending connection's hello. Returns why to
// drop it, or nothing; *taken says whether it went to o.take.
std::optional<std::string> serveHello(Pending& p, const DataAcceptOptions& o, bool* taken) {
  char buf[sizeof(DataHello)];
  ssize_t n = ::recv(p.fd, buf, sizeof(DataHello) - p.bytes.size(), MSG_DONTWAIT);
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) return std::nullopt;
  if (n <= 0) return "closed before its data hello";
  p.bytes.append(buf, static_cast<std::size_t>(n));
  if (p.bytes.size() < sizeof(DataHello)) return std::nullopt;
  DataHello h;
  std::memcpy(&h, p.bytes.data(), sizeof h);
  std::string_view cookie(reinterpret_cast<const char*>(h.cookie.data()), h.cookie.size());
  if (h.magic != kDataMagic || !sameBytes(cookie, o.cookie)) return "not a data hello of this job";
  if (!o.wanted(h)) {
    return "data hello for rank " + std::to_string(h.rank) + " stream " + std::to_string(h.index) +
           " that is out of range or already connected";
  }
  if (o.ack && ::send(p.fd, &kDataAck, 1, MSG_NOSIGNAL | MSG_DONTWAIT) != 1)
    return std::string("cannot acknowledge its data hello: ") + std::strerror(errno);
  o.take(p.fd, h);
  *taken = true;
  return std::nullopt;
}

}  // namespace

Status acceptDataConnections(int listener, const DataAcceptOptions& o, Clock::time_point deadline) {
  RateLimitedLog log([&o](const std::string& line) {
    if (o.notice) o.notice(line);
  });
  std::vector<Pending> pending;
  auto drop = [&](std::size_t i, const std::string& why) {
    log("data plane: dropped " + pending[i].address + ": " + why);
    closeFd(pending[i].fd);
    pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(i));
  };
  int left = o.expected;
  Status result = okStatus();
  auto serving = [&] { return o.stop != nullptr ? !o.stop->load() : left > 0; };
  while (serving()) {
    auto now = Clock::now();
    if (now >= deadline) {
      result = makeError(ErrorCode::kTimeout, "waiting for data connections");
      break;
    }
    for (std::size_t i = pending.size(); i-- > 0;) {
      if (now >= pending[i].deadline) drop(i, "no complete data hello within the per-connection deadline");
    }
    std::vector<pollfd> fds{{listener, POLLIN, 0}, {o.stop_fd, POLLIN, 0}};  // poll skips a -1
    auto wake = deadline;
    for (const auto& p : pending) {
      fds.push_back({p.fd, POLLIN, 0});
      wake = std::min(wake, p.deadline);
    }
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(wake - now).count();
    int rc = poll(fds.data(), fds.size(), static_cast<int>(std::clamp<long long>(ms, 0, 1000)));
    if (rc < 0 && errno != EINTR) {
      result = makeError(ErrorCode::kIo, std::string("poll: ") + std::strerror(errno));
      break;
    }
    if (rc <= 0) continue;
    std::vector<int> ready;
    for (std::size_t i = 0; i < pending.size(); ++i) {
      if (fds[2 + i].revents != 0) ready.push_back(pending[i].fd);
    }
    for (int fd : ready) {
      auto it = std::find_if(pending.begin(), pending.end(), [fd](const Pending& p) { return p.fd == fd; });
      if (it == pending.end()) continue;
      bool taken = false;
      if (auto why = serveHello(*it, o, &taken)) {
        drop(static_cast<std::size_t>(it - pending.begin()), *why);
      } else if (taken) {
        pending.erase(it);
        --left;
      }
    }
    if (fds[0].revents != 0) {
      int fd = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) continue;
      if (pending.size() >= std::max<std::size_t>(1, o.max_pending))
        drop(0, "too many connections waiting (oldest dropped)");
      pending.push_back(Pending{fd, peerAddress(fd), "", std::min(Clock::now() + o.hello_timeout, deadline)});
    }
  }
  for (auto& p : pending) closeFd(p.fd);
  return result;
}

}  // namespace railkit::bench
