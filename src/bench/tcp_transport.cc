// The tcp backend (see tcp_transport.h). One stream per peer; every posted
// operation sits in its peer's FIFO and the progress loop moves the head of
// every FIFO with non-blocking send/recv straight from/into user buffers.
#include "bench/tcp_transport.h"

#include <cerrno>
#include <cstring>
#include <deque>
#include <map>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bench/socket_util.h"
#include "core/strings.h"

namespace railkit::bench {
namespace {

struct Op {
  RequestId id;
  char* data;
  std::size_t left;
};

struct Peer {
  int fd = -1;
  std::deque<Op> sends, recvs;
};

class TcpTransport final : public Transport {
 public:
  TcpTransport(int rank, int size, TransportOptions options) : rank_(rank), size_(size), options_(std::move(options)) {
    peers_.resize(size);
    infos_.resize(size);
  }
  ~TcpTransport() override {
    for (auto& p : peers_) closeFd(p.fd);
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
      if (f.size() != 4) return makeError(ErrorCode::kPeerLost, "rank " + std::to_string(r) + " sent a bad address");
      infos_[r] = PeerInfo{r, std::string(f[2]), std::string(f[3]), std::string(f[0]) + ":" + std::string(f[1])};
    }
    auto deadline = Clock::now() + options_.stall_timeout;
    int user_timeout = static_cast<int>(options_.stall_timeout.count());
    // Higher ranks connect to lower ones and say who they are.
    for (int r = 0; r < rank_; ++r) {
      auto f = split((*all)[r], ' ');
      auto fd = connectTo(std::string(f[0]), static_cast<int>(*parseUint(f[1])), options_.data_address, deadline);
      if (!fd) return makeError(ErrorCode::kPeerLost, describe(r) + ": " + fd.error().message);
      int32_t me = rank_;
      if (auto s = sendAll(*fd, &me, sizeof me, deadline); !s) return tl::unexpected(s.error());
      tuneDataSocket(*fd, user_timeout);
      peers_[r].fd = *fd;
    }
    for (int n = rank_ + 1; n < size_; ++n) {
      auto fd = acceptUntil(*listener, deadline);
      if (!fd) return makeError(ErrorCode::kTimeout, "waiting for data connections: " + fd.error().message);
      int32_t who = -1;
      if (!recvAll(*fd, &who, sizeof who, deadline) || who <= rank_ || who >= size_ || peers_[who].fd >= 0) {
        closeFd(*fd);
        --n;
        continue;
      }
      tuneDataSocket(*fd, user_timeout);
      peers_[who].fd = *fd;
    }
    closeFd(*listener);
    return okStatus();
  }

  Result<RequestId> postSend(int peer, const void* data, std::size_t bytes) override {
    RequestId id = ++next_;
    peers_[peer].sends.push_back(Op{id, const_cast<char*>(static_cast<const char*>(data)), bytes});
    owner_[id] = peer;
    return id;
  }
  Result<RequestId> postRecv(int peer, void* data, std::size_t bytes) override {
    RequestId id = ++next_;
    peers_[peer].recvs.push_back(Op{id, static_cast<char*>(data), bytes});
    owner_[id] = peer;
    return id;
  }
  Status wait(RequestId id) override { return waitAll({id}); }

  Status waitAll(const std::vector<RequestId>& ids) override {
    auto pending = [&] {
      for (RequestId id : ids) {
        if (owner_.count(id)) return true;
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
        Peer& p = peers_[r];
        if (p.sends.empty() && p.recvs.empty()) continue;
        if (auto s = pump(r, &progressed); !s) return s;
        short ev = (p.sends.empty() ? 0 : POLLOUT) | (p.recvs.empty() ? 0 : POLLIN);
        if (ev) {
          fds.push_back(pollfd{p.fd, ev, 0});
          ranks.push_back(r);
        }
      }
      if (progressed) {
        last_progress = Clock::now();
        continue;
      }
      if (Clock::now() - last_progress > options_.stall_timeout) {
        int r = ranks.empty() ? 0 : ranks[0];
        return makeError(ErrorCode::kTimeout, "no progress for " +
                                                  std::to_string(options_.stall_timeout.count() / 1000) +
                                                  " s with " + describe(r));
      }
      if (!fds.empty()) poll(fds.data(), fds.size(), 100);
    }
    return okStatus();
  }

  Status barrier() override {
    char out = 0, in0 = 0, in1 = 0;
    // Two rounds of a dissemination barrier are enough for small worlds; use all ranks for simplicity.
    for (int d = 1; d < size_; d <<= 1) {
      if (auto s = sendRecv(*this, (rank_ + d) % size_, &out, 1, (rank_ - d + size_) % size_, &in0, 1); !s) return s;
    }
    (void)in1;
    return okStatus();
  }

 private:
  std::string describe(int r) const {
    const PeerInfo& i = infos_[r];
    return "rank " + std::to_string(r) + " (host " + i.host + ", interface " + i.interface + ", " + i.address + ")";
  }

  Status pump(int r, bool* progressed) {
    Peer& p = peers_[r];
    while (!p.sends.empty()) {
      Op& op = p.sends.front();
      if (op.left > 0) {
        ssize_t n = ::send(p.fd, op.data, op.left, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0 && (errno == EAGAIN || errno == EINTR)) break;
        if (n <= 0) return makeError(ErrorCode::kPeerLost, "lost " + describe(r) + ": " + strerror(errno));
        op.data += n;
        op.left -= static_cast<std::size_t>(n);
        *progressed = true;
      }
      if (op.left == 0) {
        owner_.erase(op.id);
        p.sends.pop_front();
      }
    }
    while (!p.recvs.empty()) {
      Op& op = p.recvs.front();
      if (op.left > 0) {
        ssize_t n = ::recv(p.fd, op.data, op.left, MSG_DONTWAIT);
        if (n < 0 && (errno == EAGAIN || errno == EINTR)) break;
        if (n == 0) return makeError(ErrorCode::kPeerLost, "lost " + describe(r) + ": connection closed");
        if (n < 0) return makeError(ErrorCode::kPeerLost, "lost " + describe(r) + ": " + strerror(errno));
        op.data += n;
        op.left -= static_cast<std::size_t>(n);
        *progressed = true;
      }
      if (op.left == 0) {
        owner_.erase(op.id);
        p.recvs.pop_front();
      }
    }
    return okStatus();
  }

  int rank_, size_;
  TransportOptions options_;
  std::vector<Peer> peers_;
  std::vector<PeerInfo> infos_;
  std::map<RequestId, int> owner_;
  RequestId next_ = 0;
};

}  // namespace

Result<std::unique_ptr<Transport>> makeTcpTransport(Bootstrap& bootstrap, const TransportOptions& options) {
  auto t = std::make_unique<TcpTransport>(bootstrap.rank(), bootstrap.size(), options);
  if (auto s = t->connectAll(bootstrap); !s) return tl::unexpected(s.error());
  return std::unique_ptr<Transport>(std::move(t));
}

}  // namespace railkit::bench
