// The tcp backend (see tcp_transport.h). Each peer is reached over K
// streams. The bytes sent to one peer form one logical stream; byte offset o
// of it travels on connection (o / stripe) % K. Both sides cut the stream at
// the same offsets whatever message sizes they post, so a sender posting one
// large message and a receiver posting it back in chunks still agree, and
// FIFO order per direction holds. Every posted operation becomes segments in
// its connections' FIFOs; one progress loop (poll over every busy socket)
// moves them with non-blocking send/recv straight from/into user buffers.
#include "bench/tcp_transport.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <deque>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>
#include <unordered_map>

#include "bench/socket_util.h"
#include "core/strings.h"

namespace railkit::bench {
namespace {

// Stream offsets are cut at this granularity; small enough that a 1 MiB
// pipeline chunk spreads over every connection, large enough to keep the
// per-syscall cost low.
constexpr std::size_t kStripeBytes = 256 << 10;
constexpr int kMaxConnections = 16;

struct Segment {
  RequestId id;
  char* data;
  std::size_t left;
};

struct Conn {
  int fd = -1;
  std::deque<Segment> sends, recvs;
};

struct Peer {
  std::vector<Conn> conns;
  std::uint64_t send_offset = 0, recv_offset = 0;  // logical stream positions
};

// Hello on a data connection: who connects, which of its K streams this is.
struct DataHello {
  std::int32_t magic;
  std::int32_t rank;
  std::int32_t index;
};
constexpr std::int32_t kDataMagic = 0x524b5444;  // "RKTD"

class TcpTransport final : public Transport {
 public:
  TcpTransport(int rank, int size, TransportOptions options) : rank_(rank), size_(size), options_(std::move(options)) {
    conns_ = std::clamp(options_.connections_per_peer, 1, kMaxConnections);
    peers_.resize(size);
    for (auto& p : peers_) p.conns.resize(static_cast<std::size_t>(conns_));
    infos_.resize(size);
  }
  ~TcpTransport() override {
    for (auto& p : peers_) {
      for (auto& c : p.conns) closeFd(c.fd);
    }
  }
  const char* name() const override { return "tcp"; }
  TransportCaps caps() const override { return {}; }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  const PeerInfo& peer(int r) const override { return infos_[r]; }

  Status connectAll(Bootstrap& bootstrap) {
    int port = 0;
    auto listener = listenOn(options_.data_address, 0, &port);
    if (!listener) return tl::unexpected(listener.error());
    std::string mine = options_.data_address + " " + std::to_string(port) + " " + options_.hostname + " " +
                       (options_.data_interface.empty() ? "-" : options_.data_interface);
    auto all = bootstrap.allgather(mine);
    if (!all) {
      closeFd(*listener);
      return tl::unexpected(all.error());
    }
    for (int r = 0; r < size_; ++r) {
      auto f = split((*all)[r], ' ');
      if (f.size() != 4 || !parseUint(f[1])) {
        closeFd(*listener);
        return makeError(ErrorCode::kPeerLost, "rank " + std::to_string(r) + " sent a bad data-plane address");
      }
      infos_[r] = PeerInfo{r, std::string(f[2]), std::string(f[3]), std::string(f[0]) + ":" + std::string(f[1])};
    }
    Status s = connectPeers(*all, *listener);
    closeFd(*listener);
    return s;
  }

  Result<RequestId> postSend(int peer, const void* data, std::size_t bytes) override {
    Peer& p = peers_[peer];
    return post(p, &p.send_offset, true, const_cast<char*>(static_cast<const char*>(data)), bytes);
  }
  Result<RequestId> postRecv(int peer, void* data, std::size_t bytes) override {
    Peer& p = peers_[peer];
    return post(p, &p.recv_offset, false, static_cast<char*>(data), bytes);
  }
  Status wait(RequestId id) override { return waitAll({id}); }

  Status waitAll(const std::vector<RequestId>& ids) override {
    auto pending = [&] {
      for (RequestId id : ids) {
        if (left_.count(id)) return true;
      }
      return false;
    };
    auto last_progress = Clock::now();
    std::vector<pollfd> fds;
    std::vector<int> ranks;
    while (pending()) {
      bool progressed = false;
      fds.clear();
      ranks.clear();
      for (int r = 0; r < size_; ++r) {
        for (Conn& c : peers_[r].conns) {
          if (c.sends.empty() && c.recvs.empty()) continue;
          if (auto s = pump(r, c, &progressed); !s) return s;
          short ev = static_cast<short>((c.sends.empty() ? 0 : POLLOUT) | (c.recvs.empty() ? 0 : POLLIN));
          if (ev) {
            fds.push_back(pollfd{c.fd, ev, 0});
            ranks.push_back(r);
          }
        }
      }
      if (progressed) {
        last_progress = Clock::now();
        continue;
      }
      if (!pending()) break;
      auto idle = Clock::now() - last_progress;
      if (idle >= options_.stall_timeout) return stalled(ranks);
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(options_.stall_timeout - idle).count();
      int timeout = static_cast<int>(std::clamp<long long>(left, 1, 200));
      if (fds.empty()) return makeError(ErrorCode::kInternal, "tcp transport: waiting on requests nobody progresses");
      if (poll(fds.data(), fds.size(), timeout) < 0 && errno != EINTR) {
        return makeError(ErrorCode::kIo, std::string("poll: ") + strerror(errno));
      }
      for (std::size_t i = 0; i < fds.size(); ++i) {
        if (fds[i].revents & (POLLERR | POLLNVAL)) return lost(ranks[i], fds[i].fd);
      }
    }
    return okStatus();
  }

  Status barrier() override {
    char out = 0, in = 0;
    // Dissemination barrier: log2(n) rounds of one byte to rank+d.
    for (int d = 1; d < size_; d <<= 1) {
      if (auto s = sendRecv(*this, (rank_ + d) % size_, &out, 1, (rank_ - d + size_) % size_, &in, 1); !s) return s;
    }
    return okStatus();
  }

 private:
  std::string describe(int r) const {
    const PeerInfo& i = infos_[r];
    return "rank " + std::to_string(r) + " (host " + i.host + ", interface " + i.interface + ", " + i.address +
           "; local interface " + (options_.data_interface.empty() ? "-" : options_.data_interface) + ")";
  }

  Status connectPeers(const std::vector<std::string>& all, int listener) {
    auto deadline = Clock::now() + options_.stall_timeout;
    int user_timeout = static_cast<int>(options_.stall_timeout.count());
    // Higher ranks connect to lower ones, K streams each, and say who they are.
    for (int r = 0; r < rank_; ++r) {
      auto f = split(all[r], ' ');
      for (int k = 0; k < conns_; ++k) {
        auto fd = connectTo(std::string(f[0]), static_cast<int>(*parseUint(f[1])), options_.data_address, deadline);
        if (!fd) return makeError(ErrorCode::kPeerLost, "cannot reach " + describe(r) + ": " + fd.error().message);
        DataHello hello{kDataMagic, rank_, k};
        tuneDataSocket(*fd, user_timeout);
        peers_[r].conns[k].fd = *fd;
        if (auto s = sendAll(*fd, &hello, sizeof hello, deadline); !s) {
          return makeError(ErrorCode::kPeerLost, "lost " + describe(r) + ": " + s.error().message);
        }
      }
    }
    int expected = (size_ - 1 - rank_) * conns_;
    while (expected > 0) {
      auto fd = acceptUntil(listener, deadline);
      if (!fd) return makeError(ErrorCode::kTimeout, "waiting for data connections from " + missingPeers());
      // A stranger gets a short while to introduce itself, then is dropped.
      DataHello h{};
      auto hello_deadline = std::min(deadline, Clock::now() + std::chrono::seconds(2));
      bool ok = recvAll(*fd, &h, sizeof h, hello_deadline).has_value() && h.magic == kDataMagic &&
                h.rank > rank_ && h.rank < size_ && h.index >= 0 && h.index < conns_ &&
                peers_[h.rank].conns[h.index].fd < 0;
      if (!ok) {
        closeFd(*fd);
        continue;
      }
      tuneDataSocket(*fd, user_timeout);
      peers_[h.rank].conns[h.index].fd = *fd;
      --expected;
    }
    return okStatus();
  }

  std::string missingPeers() const {
    std::string out;
    for (int r = rank_ + 1; r < size_; ++r) {
      for (const Conn& c : peers_[r].conns) {
        if (c.fd >= 0) continue;
        if (!out.empty()) out += ", ";
        out += describe(r);
        break;
      }
    }
    return out;
  }

  Result<RequestId> post(Peer& p, std::uint64_t* offset, bool send, char* data, std::size_t bytes) {
    RequestId id = ++next_;
    std::size_t segments = 0;
    while (bytes > 0) {
      std::size_t in_stripe = kStripeBytes - static_cast<std::size_t>(*offset % kStripeBytes);
      std::size_t n = std::min(bytes, in_stripe);
      Conn& c = p.conns[static_cast<std::size_t>((*offset / kStripeBytes) % static_cast<std::uint64_t>(conns_))];
      (send ? c.sends : c.recvs).push_back(Segment{id, data, n});
      data += n;
      bytes -= n;
      *offset += n;
      ++segments;
    }
    if (segments > 0) left_[id] = segments;
    return id;
  }

  void finish(RequestId id) {
    auto it = left_.find(id);
    if (it != left_.end() && --it->second == 0) left_.erase(it);
  }

  Status lost(int r, int fd) {
    int err = 0;
    socklen_t len = sizeof err;
    getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
    return lostWith(r, err != 0 ? strerror(err) : "socket error");
  }

  Status lostWith(int r, const std::string& why) {
    return makeError(ErrorCode::kPeerLost, "lost " + describe(r) + ": " + why);
  }

  Status stalled(const std::vector<int>& ranks) const {
    std::string who;
    for (int r : ranks) {
      std::string d = describe(r);
      if (who.find(d) == std::string::npos) who += (who.empty() ? "" : ", ") + d;
    }
    if (who.empty()) who = "no peer";
    return makeError(ErrorCode::kTimeout, "no progress for " + std::to_string(options_.stall_timeout.count()) +
                                              " ms (--stall-timeout) with " + who);
  }

  Status pump(int r, Conn& c, bool* progressed) {
    while (!c.sends.empty()) {
      Segment& s = c.sends.front();
      ssize_t n = ::send(c.fd, s.data, s.left, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n < 0 && (errno == EAGAIN || errno == EINTR)) break;
      if (n <= 0) return lostWith(r, strerror(errno));
      s.data += n;
      s.left -= static_cast<std::size_t>(n);
      *progressed = true;
      if (s.left > 0) break;  // the socket buffer is full
      finish(s.id);
      c.sends.pop_front();
    }
    while (!c.recvs.empty()) {
      Segment& s = c.recvs.front();
      ssize_t n = ::recv(c.fd, s.data, s.left, MSG_DONTWAIT);
      if (n < 0 && (errno == EAGAIN || errno == EINTR)) break;
      if (n == 0) return lostWith(r, "connection closed by the peer");
      if (n < 0) return lostWith(r, strerror(errno));
      s.data += n;
      s.left -= static_cast<std::size_t>(n);
      *progressed = true;
      if (s.left > 0) break;  // drained what had arrived
      finish(s.id);
      c.recvs.pop_front();
    }
    return okStatus();
  }

  int rank_, size_;
  int conns_ = 1;
  TransportOptions options_;
  std::vector<Peer> peers_;
  std::vector<PeerInfo> infos_;
  std::unordered_map<RequestId, std::size_t> left_;  // segments still moving, per request
  RequestId next_ = 0;
};

}  // namespace

Result<std::unique_ptr<Transport>> makeTcpTransport(Bootstrap& bootstrap, const TransportOptions& options) {
  auto t = std::make_unique<TcpTransport>(bootstrap.rank(), bootstrap.size(), options);
  if (auto s = t->connectAll(bootstrap); !s) return tl::unexpected(s.error());
  return std::unique_ptr<Transport>(std::move(t));
}

}  // namespace railkit::bench
