// Socket moves of the tcp transport's lanes (see lanes.h).
#include "bench/tcp/lanes.h"

#include <sys/socket.h>
#include <sys/uio.h>

#include <array>
#include <cerrno>
#include <cstring>

namespace railkit::bench::tcp {
namespace {

// Segments moved by one sendmsg/recvmsg at most.
constexpr std::size_t kMaxIov = 64;

}  // namespace

std::optional<std::string> pumpLane(Lane& lane, bool* moved, std::vector<RequestId>& done_ids) {
  // The lane's queued segments are consecutive bytes of its stream, so one
  // sendmsg/recvmsg can move many small messages at once.
  std::array<iovec, kMaxIov> iov;
  while (!lane.queue.empty()) {
    std::size_t count = 0;
    for (auto it = lane.queue.begin(); it != lane.queue.end() && count < kMaxIov; ++it) {
      iov[count++] = {it->data, it->left};
    }
    msghdr msg{};
    msg.msg_iov = iov.data();
    msg.msg_iovlen = count;
    ssize_t n = lane.send ? ::sendmsg(lane.fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT)
                          : ::recvmsg(lane.fd, &msg, MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return std::nullopt;
    if (n == 0 && !lane.send) return "connection closed by the peer";
    if (n <= 0) return std::string(strerror(errno));
    *moved = true;
    auto left = static_cast<std::size_t>(n);
    while (left > 0) {
      Segment& s = lane.queue.front();
      std::size_t take = std::min(left, s.left);
      s.data += take;
      s.left -= take;
      left -= take;
      if (s.left > 0) break;  // try again: more may fit or have arrived
      done_ids.push_back(s.id);
      lane.queue.pop_front();
      lane.owned.fetch_sub(1, std::memory_order_release);
    }
  }
  return std::nullopt;
}

std::optional<std::string> moveSegment(Lane& lane, Segment& segment, bool* moved) {
  while (segment.left > 0) {
    ssize_t n = lane.send ? ::send(lane.fd, segment.data, segment.left, MSG_NOSIGNAL | MSG_DONTWAIT)
                          : ::recv(lane.fd, segment.data, segment.left, MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    if (n < 0 && errno == EINTR) continue;
    if (n == 0 && !lane.send) return "connection closed by the peer";
    if (n <= 0) return std::string(strerror(errno));
    segment.data += n;
    segment.left -= static_cast<std::size_t>(n);
    *moved = true;
  }
  return std::nullopt;
}

void dropLane(Lane& lane) {
  lane.owned.fetch_sub(lane.queue.size(), std::memory_order_release);
  lane.queue.clear();
}

}  // namespace railkit::bench::tcp
