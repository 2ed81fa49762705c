// The tcp backend (see tcp_transport.h). Each peer is reached over K
// streams. The bytes sent to one peer form one logical stream; byte offset o
// of it travels on connection (o / stripe) % K. Both sides cut the stream at
// the same offsets whatever message sizes they post, so a sender posting one
// large message and a receiver posting it back in chunks still agree, and
// FIFO order per direction holds.
//
// Every connection has two lanes, one per direction. A posted operation
// becomes segments in its lanes' FIFOs; lanes are served by I/O threads,
// separate ones for sending and receiving (see startThreads). Each I/O thread moves its lanes with non-blocking send/recv straight
// from/into the user buffers and sleeps in poll when none can move. The
// caller's thread posts, waits and computes (and reads small receives
// itself, see kInlineBytes): a ring reduces chunk k
// while the threads keep every socket of both directions busy, and on a
// machine with idle cores the kernel's copies run in parallel. Operations to
// the rank itself are copied at post time (a 1-rank job needs no socket).
#include "bench/tcp_transport.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <mutex>
#include <optional>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <thread>
#include <unistd.h>
#include <unordered_map>

#include "bench/data_accept.h"
#include "bench/job_token.h"
#include "bench/rendezvous.h"
#include "bench/socket_util.h"
#include "core/strings.h"

namespace railkit::bench {
namespace {

// Stream offsets are cut at this granularity; small enough that a 1 MiB
// pipeline chunk spreads over every connection, large enough to keep the
// per-syscall cost low.
constexpr std::size_t kStripeBytes = 256 << 10;
constexpr int kMaxConnections = 16;
// A message up to this size is tried on the socket by the posting thread
// first (when the lane is idle): a barrier or a small ping-pong then costs no
// hand-off to an I/O thread. A small receive whose bytes have not arrived yet
// stays with the posting thread ("parked"), which reads it itself in wait():
// handing it to an I/O thread would cost two thread wake-ups per message,
// which doubled small-message latency.
constexpr std::size_t kInlineBytes = 64 << 10;
// Segments moved by one sendmsg/recvmsg at most.
constexpr std::size_t kMaxIov = 64;

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
  std::vector<Lane> sends, recvs;  // one of each per connection
  std::uint64_t send_offset = 0, recv_offset = 0;  // logical stream positions
  std::atomic<std::int64_t> last_progress{0};      // Clock ticks of the last byte moved
};

struct IoThread {
  std::mutex mu;
  std::vector<Lane*> lanes;
  std::atomic<bool> has_inbox{false};
  int wake = -1;  // eventfd: posts and shutdown
  std::thread thread;
  std::vector<RequestId> done_ids;  // pump()'s scratch
};

struct Pending {
  std::size_t segments;
  int rank;
};


std::int64_t ticks(Clock::time_point t) { return t.time_since_epoch().count(); }

class TcpTransport final : public Transport {
 public:
  TcpTransport(int rank, int size, TransportOptions options)
      : rank_(rank), size_(size), options_(std::move(options)), peers_(static_cast<std::size_t>(size)) {
    conns_ = std::clamp(options_.connections_per_peer, 1, kMaxConnections);
    for (int r = 0; r < size_; ++r) {
      Peer& p = peers_[static_cast<std::size_t>(r)];
      p.sends = std::vector<Lane>(static_cast<std::size_t>(conns_));
      p.recvs = std::vector<Lane>(static_cast<std::size_t>(conns_));
      for (int k = 0; k < conns_; ++k) {
        p.sends[static_cast<std::size_t>(k)].rank = p.recvs[static_cast<std::size_t>(k)].rank = r;
        p.sends[static_cast<std::size_t>(k)].send = true;
      }
    }
    infos_.resize(static_cast<std::size_t>(size));
  }
  ~TcpTransport() override {
    stopThreads();
    for (auto& t : threads_) closeFd(t->wake);
    for (auto& p : peers_) {
      for (auto& l : p.sends) closeFd(l.fd);
    }
  }
  const char* name() const override { return "tcp"; }
  TransportCaps caps() const override { return {}; }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  const PeerInfo& peer(int r) const override { return infos_[static_cast<std::size_t>(r)]; }

  Status connectAll(Bootstrap& bootstrap) {
    int port = 0;
    auto listener = listenOn(options_.data_address, 0, &port);
    if (!listener) return tl::unexpected(listener.error());
    // The cookie a data connection to this rank must carry: it travels only
    // through the bootstrap, so a stranger who finds the port cannot take a stream.
    auto cookie = randomBytes(kDataCookieBytes);
    if (!cookie) {
      closeFd(*listener);
      return tl::unexpected(cookie.error());
    }
    cookie_ = *cookie;
    std::string mine = options_.data_address + " " + std::to_string(port) + " " + options_.hostname + " " +
                       (options_.data_interface.empty() ? "-" : options_.data_interface) + " " + hexEncode(cookie_);
    auto all = bootstrap.allgather(mine);
    if (!all) {
      closeFd(*listener);
      return tl::unexpected(all.error());
    }
    for (int r = 0; r < size_; ++r) {
      auto f = split((*all)[static_cast<std::size_t>(r)], ' ');
      auto peer_cookie = f.size() == 5 ? hexDecode(f[4]) : std::nullopt;
      if (f.size() != 5 || !parseUint(f[1]) || !peer_cookie || peer_cookie->size() != kDataCookieBytes) {
        closeFd(*listener);
        return makeError(ErrorCode::kPeerLost, "rank " + std::to_string(r) + " sent a bad data-plane address");
      }
      infos_[static_cast<std::size_t>(r)] =
          PeerInfo{r, std::string(f[2]), std::string(f[3]), std::string(f[0]) + ":" + std::string(f[1])};
      cookies_.push_back(*peer_cookie);
    }
    Status s = connectPeers(*all, *listener);
    closeFd(*listener);
    if (!s) return s;
    return startThreads();
  }

  Result<RequestId> postSend(int peer, const void* data, std::size_t bytes) override {
    return post(peer, true, const_cast<char*>(static_cast<const char*>(data)), bytes);
  }
  Result<RequestId> postRecv(int peer, void* data, std::size_t bytes) override {
    return post(peer, false, static_cast<char*>(data), bytes);
  }
  Status wait(RequestId id) override { return waitAll({id}); }

  Status waitAll(const std::vector<RequestId>& ids) override {
    Status s = waitFor(ids);
    if (!s) return abandon(s.error());
    return s;
  }

  Status barrier() override { return disseminationBarrier(*this); }

 private:
  Status waitFor(const std::vector<RequestId>& ids) {
    if (!parked_.empty()) {
      // The caller reads parked receives itself only when nothing else it
      // waits for is with the I/O threads (it could not hear about those).
      bool any_parked = false, all_parked = true;
      {
        std::lock_guard lock(mu_);
        for (RequestId id : ids) {
          if (!pending_.count(id)) continue;
          if (parkedLane(id) != nullptr) {
            any_parked = true;
          } else {
            all_parked = false;
          }
        }
      }
      if (any_parked && all_parked) return waitParked(ids);
      if (any_parked) unparkAll();
    }
    auto start = ticks(Clock::now());
    std::unique_lock lock(mu_);
    while (true) {
      if (failed_) return tl::unexpected(*failed_);
      bool pending = false, remote = false;
      std::int64_t last = start;
      std::vector<int> ranks;
      for (RequestId id : ids) {
        auto it = pending_.find(id);
        if (it == pending_.end()) continue;
        pending = true;
        int r = it->second.rank;
        if (r == rank_) continue;
        remote = true;
        last = std::max(last, peers_[static_cast<std::size_t>(r)].last_progress.load(std::memory_order_relaxed));
        if (std::find(ranks.begin(), ranks.end(), r) == ranks.end()) ranks.push_back(r);
      }
      if (!pending) return okStatus();
      if (!remote) {
        return makeError(ErrorCode::kInternal, "tcp transport: waiting on a receive from this rank itself that no send matches");
      }
      auto idle = Clock::now() - Clock::time_point(Clock::duration(last));
      if (idle >= options_.stall_timeout) return stalled(ranks);
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(options_.stall_timeout - idle);
      done_.wait_for(lock, std::clamp(left, std::chrono::milliseconds(1), std::chrono::milliseconds(200)));
    }
  }

  // A failed wait ends the transport. The algorithm returns at once and frees
  // its buffers while other posted operations (a send to the peer that is
  // still alive) are in the I/O threads' hands: the threads stop before the
  // error reaches the caller, so no byte moves into or out of memory the
  // caller no longer owns. Later waits return the same error.
  Status abandon(const Error& why) {
    {
      std::lock_guard lock(mu_);
      if (!failed_) failed_ = why;
    }
    stopThreads();
    for (Lane* l : parked_) l->parked.reset();
    parked_.clear();
    return tl::unexpected(why);
  }

  void stopThreads() {
    stop_.store(true);
    for (auto& t : threads_) {
      wake(*t);
      if (t->thread.joinable()) t->thread.join();
    }
  }

  std::string describe(int r) const {
    const PeerInfo& i = infos_[static_cast<std::size_t>(r)];
    return "rank " + std::to_string(r) + " (host " + i.host + ", interface " + i.interface + ", " + i.address +
           "; local interface " + (options_.data_interface.empty() ? "-" : options_.data_interface) + ")";
  }

  Status connectPeers(const std::vector<std::string>& all, int listener) {
    auto deadline = Clock::now() + options_.stall_timeout;
    int user_timeout = static_cast<int>(options_.stall_timeout.count());
    // Higher ranks connect to lower ones, K streams each, and say who they are.
    for (int r = 0; r < rank_; ++r) {
      auto f = split(all[static_cast<std::size_t>(r)], ' ');
      for (int k = 0; k < conns_; ++k) {
        auto fd = connectTo(std::string(f[0]), static_cast<int>(*parseUint(f[1])), options_.data_address, deadline);
        if (!fd) return makeError(ErrorCode::kPeerLost, "cannot reach " + describe(r) + ": " + fd.error().message);
        DataHello hello{kDataMagic, rank_, k, {}};
        const std::string& cookie = cookies_[static_cast<std::size_t>(r)];
        std::copy(cookie.begin(), cookie.end(), hello.cookie.begin());
        tuneDataSocket(*fd, user_timeout);
        setFd(r, k, *fd);
        if (auto s = sendAll(*fd, &hello, sizeof hello, deadline); !s) {
          return makeError(ErrorCode::kPeerLost, "lost " + describe(r) + ": " + s.error().message);
        }
      }
    }
    DataAcceptOptions accept;
    accept.cookie = cookie_;
    accept.expected = (size_ - 1 - rank_) * conns_;
    accept.wanted = [this](const DataHello& h) {
      return h.rank > rank_ && h.rank < size_ && h.index >= 0 && h.index < conns_ &&
             peers_[static_cast<std::size_t>(h.rank)].sends[static_cast<std::size_t>(h.index)].fd < 0;
    };
    accept.take = [this, user_timeout](int fd, const DataHello& h) {
      tuneDataSocket(fd, user_timeout);
      setFd(h.rank, h.index, fd);
    };
    accept.notice = [this](const std::string& line) {
      std::fprintf(stderr, "railkit: rank %d: %s\n", rank_, line.c_str());
    };
    if (auto s = acceptDataConnections(listener, accept, deadline); !s) {
      if (s.error().code != ErrorCode::kTimeout) return s;
      return makeError(ErrorCode::kTimeout, "waiting for data connections from " + missingPeers());
    }
    return okStatus();
  }

  void setFd(int r, int k, int fd) {
    Peer& p = peers_[static_cast<std::size_t>(r)];
    p.sends[static_cast<std::size_t>(k)].fd = p.recvs[static_cast<std::size_t>(k)].fd = fd;
  }

  std::string missingPeers() const {
    std::string out;
    for (int r = rank_ + 1; r < size_; ++r) {
      for (const Lane& l : peers_[static_cast<std::size_t>(r)].sends) {
        if (l.fd >= 0) continue;
        if (!out.empty()) out += ", ";
        out += describe(r);
        break;
      }
    }
    return out;
  }

  // Each direction gets up to one thread per connection, at most half the
  // cores but at least two (when K allows): more threads than cores only add
  // context switches, and two per direction keep a socket moving while the
  // other thread is in a copy. Lane (connection k, direction d) of every peer
  // is served by thread 2 (k mod per_direction) + d.
  Status startThreads() {
    if (size_ == 1) return okStatus();
    int hw = static_cast<int>(std::thread::hardware_concurrency());
    per_direction_ = std::min(conns_, std::max(2, hw / 2));
    for (int i = 0; i < 2 * per_direction_; ++i) {
      auto t = std::make_unique<IoThread>();
      t->wake = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
      if (t->wake < 0) return makeError(ErrorCode::kIo, std::string("eventfd: ") + strerror(errno));
      threads_.push_back(std::move(t));
    }
    for (int r = 0; r < size_; ++r) {
      if (r == rank_) continue;
      Peer& p = peers_[static_cast<std::size_t>(r)];
      for (int k = 0; k < conns_; ++k) {
        threadOf(k, true).lanes.push_back(&p.sends[static_cast<std::size_t>(k)]);
        threadOf(k, false).lanes.push_back(&p.recvs[static_cast<std::size_t>(k)]);
      }
    }
    for (auto& t : threads_) {
      IoThread* raw = t.get();
      t->thread = std::thread([this, raw] { serve(*raw); });
    }
    return okStatus();
  }

  IoThread& threadOf(int k, bool send) {
    return *threads_[static_cast<std::size_t>(2 * (k % per_direction_) + (send ? 0 : 1))];
  }

  static void wake(IoThread& t) {
    std::uint64_t one = 1;
    [[maybe_unused]] ssize_t n = ::write(t.wake, &one, sizeof one);
  }

  Result<RequestId> post(int peer, bool send, char* data, std::size_t bytes) {
    if (peer < 0 || peer >= size_) return makeError(ErrorCode::kInternal, "tcp transport: no rank " + std::to_string(peer));
    if (stop_.load(std::memory_order_relaxed)) {
      if (auto f = failed()) return tl::unexpected(*f);
    }
    RequestId id = ++next_;
    if (bytes == 0) return id;
    if (peer == rank_) return postSelf(id, send, data, bytes);
    Peer& p = peers_[static_cast<std::size_t>(peer)];
    // A parked receive must reach its lane's thread before anything posted after it.
    if (!send) unparkPeer(p);
    std::uint64_t* offset = send ? &p.send_offset : &p.recv_offset;
    // Cut into stripes first, so the request is known before a thread can finish a piece of it.
    cuts_.clear();
    while (bytes > 0) {
      std::size_t in_stripe = kStripeBytes - static_cast<std::size_t>(*offset % kStripeBytes);
      std::size_t n = std::min(bytes, in_stripe);
      int k = static_cast<int>((*offset / kStripeBytes) % static_cast<std::uint64_t>(conns_));
      cuts_.push_back({k, Segment{id, data, n}});
      data += n;
      bytes -= n;
      *offset += n;
    }
    if (cuts_.size() == 1 && cuts_[0].second.left <= kInlineBytes) {
      Segment& seg = cuts_[0].second;
      Lane& lane = send ? p.sends[static_cast<std::size_t>(cuts_[0].first)] : p.recvs[static_cast<std::size_t>(cuts_[0].first)];
      if (lane.owned.load(std::memory_order_acquire) == 0) {
        if (auto err = moveInline(lane, seg); err) {
          fail(peer, *err);
          return tl::unexpected(abandon(*failed()).error());
        }
        if (seg.left == 0) return id;
        if (!send) {
          {
            std::lock_guard lock(mu_);
            pending_[id] = Pending{1, peer};
          }
          lane.parked = seg;
          parked_.push_back(&lane);
          return id;
        }
      }
    }
    {
      std::lock_guard lock(mu_);
      pending_[id] = Pending{cuts_.size(), peer};
    }
    // Hand each connection's pieces to its thread, one lock and one wake-up per thread.
    for (int k = 0; k < conns_; ++k) {
      IoThread& t = threadOf(k, send);
      Lane& lane = send ? p.sends[static_cast<std::size_t>(k)] : p.recvs[static_cast<std::size_t>(k)];
      bool any = false, waking = false;
      {
        std::lock_guard lock(t.mu);
        for (const auto& [ck, seg] : cuts_) {
          if (ck != k) continue;
          lane.owned.fetch_add(1, std::memory_order_relaxed);
          lane.inbox.push_back(seg);
          any = true;
        }
        // Whoever raised has_inbox wakes the thread, which drains the inbox
        // after it wakes: a burst of posts costs one wake-up, not one each.
        if (any) waking = !t.has_inbox.exchange(true);
      }
      if (waking) wake(t);
    }
    return id;
  }

  // Messages to this rank itself: matched in posting order and copied at once.
  Result<RequestId> postSelf(RequestId id, bool send, char* data, std::size_t bytes) {
    std::lock_guard lock(mu_);
    pending_[id] = Pending{1, rank_};
    (send ? self_sends_ : self_recvs_).push_back(Segment{id, data, bytes});
    while (!self_sends_.empty() && !self_recvs_.empty()) {
      Segment& s = self_sends_.front();
      Segment& r = self_recvs_.front();
      std::size_t n = std::min(s.left, r.left);
      std::memcpy(r.data, s.data, n);
      for (Segment* seg : {&s, &r}) {
        seg->data += n;
        seg->left -= n;
      }
      if (s.left == 0) {
        pending_.erase(s.id);
        self_sends_.pop_front();
      }
      if (r.left == 0) {
        pending_.erase(r.id);
        self_recvs_.pop_front();
      }
    }
    return id;
  }

  // An I/O thread: moves its lanes until the transport is destroyed.
  void serve(IoThread& t) {
    std::vector<pollfd> fds;
    std::vector<Lane*> polled;
    while (!stop_.load(std::memory_order_relaxed)) {
      if (t.has_inbox.load()) {
        std::lock_guard lock(t.mu);
        t.has_inbox.store(false);
        for (Lane* l : t.lanes) {
          l->queue.insert(l->queue.end(), l->inbox.begin(), l->inbox.end());
          l->inbox.clear();
        }
      }
      bool progressed = false;
      fds.clear();
      polled.clear();
      fds.push_back(pollfd{t.wake, POLLIN, 0});
      for (Lane* l : t.lanes) {
        if (l->queue.empty()) continue;
        if (auto err = pump(*l, &progressed, t.done_ids)) {
          fail(l->rank, *err);
          drop(*l);
          continue;
        }
        if (!l->queue.empty()) {
          fds.push_back(pollfd{l->fd, static_cast<short>(l->send ? POLLOUT : POLLIN), 0});
          polled.push_back(l);
        }
      }
      if (progressed) continue;
      if (poll(fds.data(), fds.size(), 1000) < 0 && errno != EINTR) {
        fail(-1, std::string("poll: ") + strerror(errno));
        return;
      }
      if (fds[0].revents & POLLIN) {
        std::uint64_t v = 0;
        [[maybe_unused]] ssize_t n = ::read(t.wake, &v, sizeof v);
      }
      for (std::size_t i = 1; i < fds.size(); ++i) {
        if (!(fds[i].revents & (POLLERR | POLLNVAL))) continue;
        Lane* l = polled[i - 1];
        int err = 0;
        socklen_t len = sizeof err;
        getsockopt(l->fd, SOL_SOCKET, SO_ERROR, &err, &len);
        fail(l->rank, err != 0 ? strerror(err) : "socket error");
        drop(*l);
      }
    }
  }

  // Moves the lane's front segments until the socket would block; returns an error text when the peer is lost.
  std::optional<std::string> pump(Lane& l, bool* progressed, std::vector<RequestId>& done_ids) {
    Peer& p = peers_[static_cast<std::size_t>(l.rank)];
    bool moved = false;
    std::optional<std::string> err;
    // The lane's queued segments are consecutive bytes of its stream, so one
    // sendmsg/recvmsg can move many small messages at once.
    std::array<iovec, kMaxIov> iov;
    done_ids.clear();
    while (!l.queue.empty()) {
      std::size_t count = 0;
      for (auto it = l.queue.begin(); it != l.queue.end() && count < kMaxIov; ++it) iov[count++] = {it->data, it->left};
      msghdr msg{};
      msg.msg_iov = iov.data();
      msg.msg_iovlen = count;
      ssize_t n = l.send ? ::sendmsg(l.fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT) : ::recvmsg(l.fd, &msg, MSG_DONTWAIT);
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) break;
      if (n == 0 && !l.send) {
        err = "connection closed by the peer";
        break;
      }
      if (n <= 0) {
        err = strerror(errno);
        break;
      }
      moved = true;
      auto left = static_cast<std::size_t>(n);
      while (left > 0) {
        Segment& s = l.queue.front();
        std::size_t take = std::min(left, s.left);
        s.data += take;
        s.left -= take;
        left -= take;
        if (s.left > 0) break;  // try again: more may fit or have arrived
        done_ids.push_back(s.id);
        l.queue.pop_front();
        l.owned.fetch_sub(1, std::memory_order_release);
      }
    }
    finish(done_ids);
    if (moved) {
      *progressed = true;
      p.last_progress.store(ticks(Clock::now()), std::memory_order_relaxed);
    }
    return err;
  }

  // Non-blocking send/recv of one segment by the posting thread on an idle lane.
  std::optional<std::string> moveInline(Lane& l, Segment& s) {
    while (s.left > 0) {
      ssize_t n = l.send ? ::send(l.fd, s.data, s.left, MSG_NOSIGNAL | MSG_DONTWAIT)
                         : ::recv(l.fd, s.data, s.left, MSG_DONTWAIT);
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
      if (n < 0 && errno == EINTR) continue;
      if (n == 0 && !l.send) return "connection closed by the peer";
      if (n <= 0) return std::string(strerror(errno));
      s.data += n;
      s.left -= static_cast<std::size_t>(n);
      peers_[static_cast<std::size_t>(l.rank)].last_progress.store(ticks(Clock::now()), std::memory_order_relaxed);
    }
    return std::nullopt;
  }

  Lane* parkedLane(RequestId id) const {
    for (Lane* l : parked_) {
      if (l->parked->id == id) return l;
    }
    return nullptr;
  }

  // Hands a parked receive to its lane's I/O thread.
  void unpark(Lane& lane) {
    IoThread& t = threadOf(laneIndex(lane), false);
    bool waking = false;
    {
      std::lock_guard lock(t.mu);
      lane.owned.fetch_add(1, std::memory_order_relaxed);
      lane.inbox.push_back(*lane.parked);
      waking = !t.has_inbox.exchange(true);
    }
    if (waking) wake(t);
    lane.parked.reset();
    parked_.erase(std::find(parked_.begin(), parked_.end(), &lane));
  }
  void unparkPeer(Peer& p) {
    if (parked_.empty()) return;
    for (Lane& l : p.recvs) {
      if (l.parked) unpark(l);
    }
  }
  void unparkAll() {
    while (!parked_.empty()) unpark(*parked_.back());
  }
  int laneIndex(const Lane& lane) const {
    const auto& recvs = peers_[static_cast<std::size_t>(lane.rank)].recvs;
    return static_cast<int>(&lane - recvs.data());
  }

  // wait() when every pending request is a parked receive: the caller reads
  // the sockets itself, bounded by the stall timeout like the I/O threads.
  Status waitParked(const std::vector<RequestId>& ids) {
    auto start = ticks(Clock::now());
    std::vector<pollfd> fds;
    std::vector<int> ranks;
    while (true) {
      if (auto f = failed()) return tl::unexpected(*f);
      fds.clear();
      ranks.clear();
      std::int64_t last = start;
      for (RequestId id : ids) {
        Lane* l = parkedLane(id);
        if (l == nullptr) continue;
        Segment& seg = *l->parked;
        if (auto err = moveInline(*l, seg); err) {
          fail(l->rank, *err);
          return tl::unexpected(*failed());
        }
        if (seg.left == 0) {
          l->parked.reset();
          parked_.erase(std::find(parked_.begin(), parked_.end(), l));
          std::lock_guard lock(mu_);
          pending_.erase(id);
          continue;
        }
        fds.push_back(pollfd{l->fd, POLLIN, 0});
        ranks.push_back(l->rank);
        last = std::max(last, peers_[static_cast<std::size_t>(l->rank)].last_progress.load(std::memory_order_relaxed));
      }
      if (fds.empty()) return okStatus();
      auto idle = Clock::now() - Clock::time_point(Clock::duration(last));
      if (idle >= options_.stall_timeout) return stalled(ranks);
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(options_.stall_timeout - idle);
      auto ms = std::clamp(left, std::chrono::milliseconds(1), std::chrono::milliseconds(200));
      if (poll(fds.data(), fds.size(), static_cast<int>(ms.count())) < 0 && errno != EINTR) {
        return makeError(ErrorCode::kIo, std::string("poll: ") + strerror(errno));
      }
    }
  }

  // A failed lane gives up its segments (their requests fail through failed_).
  static void drop(Lane& l) {
    l.owned.fetch_sub(l.queue.size(), std::memory_order_release);
    l.queue.clear();
  }

  std::optional<Error> failed() {
    std::lock_guard lock(mu_);
    return failed_;
  }

  // Marks segments done, one lock and at most one wake-up for the lot.
  void finish(const std::vector<RequestId>& ids) {
    if (ids.empty()) return;
    bool any = false;
    {
      std::lock_guard lock(mu_);
      for (RequestId id : ids) {
        auto it = pending_.find(id);
        if (it != pending_.end() && --it->second.segments == 0) {
          pending_.erase(it);
          any = true;
        }
      }
    }
    if (any) done_.notify_all();
  }

  void fail(int r, const std::string& why) {
    std::lock_guard lock(mu_);
    if (!failed_) {
      failed_ = r < 0 ? Error{ErrorCode::kIo, why} : Error{ErrorCode::kPeerLost, "lost " + describe(r) + ": " + why};
    }
    done_.notify_all();
  }

  Status stalled(const std::vector<int>& ranks) const {
    std::string who;
    for (int r : ranks) who += (who.empty() ? "" : ", ") + describe(r);
    if (who.empty()) who = "no peer";
    return makeError(ErrorCode::kTimeout, "no progress for " + std::to_string(options_.stall_timeout.count()) +
                                              " ms (--stall-timeout) with " + who);
  }

  int rank_, size_;
  int conns_ = 1;
  int per_direction_ = 1;  // I/O threads per direction
  TransportOptions options_;
  std::vector<Peer> peers_;
  std::vector<PeerInfo> infos_;
  std::string cookie_;                // this rank's data cookie
  std::vector<std::string> cookies_;  // every rank's, by rank
  std::vector<std::unique_ptr<IoThread>> threads_;
  std::atomic<bool> stop_{false};
  std::vector<std::pair<int, Segment>> cuts_;  // post()'s scratch
  std::vector<Lane*> parked_;  // lanes holding a parked receive (caller's thread only)
  RequestId next_ = 0;
  // Shared with the I/O threads.
  std::mutex mu_;
  std::condition_variable done_;
  std::unordered_map<RequestId, Pending> pending_;  // segments still moving, per request
  std::deque<Segment> self_sends_, self_recvs_;
  std::optional<Error> failed_;
};

}  // namespace

Result<std::unique_ptr<Transport>> makeTcpTransport(Bootstrap& bootstrap, const TransportOptions& options) {
  auto t = std::make_unique<TcpTransport>(bootstrap.rank(), bootstrap.size(), options);
  if (auto s = t->connectAll(bootstrap); !s) return tl::unexpected(s.error());
  return std::unique_ptr<Transport>(std::move(t));
}

}  // namespace railkit::bench
