// The tcp backend (see transport.h). Each peer is reached over K streams
// (streams.h). The bytes sent to one peer form one logical stream; byte
// offset o of it travels on connection (o / kStripeBytes) % K. Both sides cut
// the stream at the same offsets whatever message sizes they post, so a
// sender posting one large message and a receiver posting it back in chunks
// still agree, and FIFO order per direction holds.
//
// A posted operation becomes segments in its lanes (lanes.h), moved by I/O
// threads, separate ones for sending and receiving (io_thread.h). The
// caller's thread posts, waits and computes (and moves small messages
// itself, see kInlineBytes): a ring reduces chunk k while the threads keep
// every socket of both directions busy, and on a machine with idle cores the
// kernel's copies run in parallel. Operations to the rank itself are copied
// at post time (a 1-rank job needs no socket). A peer's streams open on the
// first operation posted to it (streams.h), so a job opens only the
// connections its algorithms use.
#include "bench/tcp/transport.h"

#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "bench/socket_util.h"
#include "bench/tcp/io_thread.h"
#include "bench/tcp/lanes.h"
#include "bench/tcp/requests.h"
#include "bench/tcp/streams.h"

namespace railkit::bench {
namespace {

using tcp::IoThread;
using tcp::Lane;
using tcp::Peer;
using tcp::Segment;

class TcpTransport final : public Transport, private tcp::LaneEvents {
 public:
  TcpTransport(int rank, int size, TransportOptions options)
      : rank_(rank), size_(size), options_(std::move(options)), peers_(static_cast<std::size_t>(size)) {
    conns_ = std::clamp(options_.connections_per_peer, 1, tcp::kMaxConnections);
    cuts_.resize(static_cast<std::size_t>(conns_));
    for (int r = 0; r < size_; ++r) {
      Peer& p = peers_[static_cast<std::size_t>(r)];
      p.sends = std::vector<Lane>(static_cast<std::size_t>(conns_));
      p.recvs = std::vector<Lane>(static_cast<std::size_t>(conns_));
      for (int k = 0; k < conns_; ++k) {
        for (Lane* l : {&p.sends[static_cast<std::size_t>(k)], &p.recvs[static_cast<std::size_t>(k)]}) {
          l->rank = r;
          l->index = k;
        }
        p.sends[static_cast<std::size_t>(k)].send = true;
      }
    }
  }
  ~TcpTransport() override {
    // The acceptor first: it hands lanes to the I/O threads.
    if (acceptor_) acceptor_->stop();
    closeFd(dir_.listener);
    stopThreads();
    threads_.clear();
    for (auto& p : peers_) {
      for (auto& l : p.sends) closeFd(l.fd);  // the receive lane shares it
    }
  }
  const char* name() const override { return "tcp"; }
  TransportCaps caps() const override { return {}; }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  const PeerInfo& peer(int r) const override { return infos_[static_cast<std::size_t>(r)]; }

  // Publishes this rank's endpoint and starts the acceptor; streams open on
  // first use (streams.h).
  Status setUp(Bootstrap& bootstrap) {
    auto dir = tcp::publishEndpoints(bootstrap, conns_, options_);
    if (!dir) return tl::unexpected(dir.error());
    dir_ = std::move(*dir);
    infos_ = dir_.peers;
    if (auto s = startThreads(); !s) return s;
    acceptor_ = std::make_unique<tcp::StreamAcceptor>(
        dir_, rank_, conns_, options_, [this](int r, const std::vector<int>& fds) { attach(r, fds); });
    return acceptor_->start();
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

  // The higher rank of the pair dials; the lower one's acceptor takes it.
  Status connect(int peer) override {
    if (peer < 0 || peer >= size_ || peer == rank_) return okStatus();
    if (auto f = requests_.failure()) return tl::unexpected(*f);
    return ensureConnected(peer);
  }

 private:
  // LaneEvents, called on the I/O threads.
  void segmentsFinished(const std::vector<RequestId>& ids) override { requests_.finish(ids); }
  void peerProgressed(int r) override { markProgress(r); }
  void laneFailed(int r, const std::string& why) override { fail(r, why); }

  void markProgress(int r) {
    peers_[static_cast<std::size_t>(r)].last_progress.store(tcp::ticks(Clock::now()),
                                                            std::memory_order_relaxed);
  }
  std::int64_t lastProgress(int r) const {
    return peers_[static_cast<std::size_t>(r)].last_progress.load(std::memory_order_relaxed);
  }

  Status waitFor(const std::vector<RequestId>& ids) {
    if (!parked_.empty()) {
      // The caller reads parked receives itself only when nothing else it
      // waits for is with the I/O threads (it could not hear about those).
      bool any_parked = false, all_parked = true;
      for (RequestId id : ids) {
        if (!requests_.pending(id)) continue;
        if (parkedLane(id) != nullptr) {
          any_parked = true;
        } else {
          all_parked = false;
        }
      }
      if (any_parked && all_parked) return waitParked(ids);
      if (any_parked) unparkAll();
    }
    return requests_.waitAll(
        ids, rank_, tcp::StallWatch(options_.stall_timeout), [this](int r) { return lastProgress(r); },
        [this](const std::vector<int>& ranks) { return stalled(ranks); });
  }

  // A failed wait ends the transport. The algorithm returns at once and frees
  // its buffers while other posted operations (a send to the peer that is
  // still alive) are in the I/O threads' hands: the threads stop before the
  // error reaches the caller, so no byte moves into or out of memory the
  // caller no longer owns. Later waits return the same error.
  Status abandon(const Error& why) {
    requests_.fail(why);
    stopThreads();
    for (Lane* l : parked_) l->parked.reset();
    parked_.clear();
    return tl::unexpected(*requests_.failure());
  }

  void stopThreads() {
    stopped_.store(true);
    for (auto& t : threads_) t->stop();
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
      auto t = std::make_unique<IoThread>(static_cast<tcp::LaneEvents&>(*this));
      if (auto s = t->open(); !s) return s;
      threads_.push_back(std::move(t));
    }
    for (auto& t : threads_) t->start();
    return okStatus();
  }

  // A peer's K streams are open: its lanes go to their I/O threads (on the
  // acceptor's thread for a higher peer, the poster's for a lower one).
  void attach(int r, const std::vector<int>& fds) {
    Peer& p = peers_[static_cast<std::size_t>(r)];
    for (int k = 0; k < conns_; ++k) {
      p.sends[static_cast<std::size_t>(k)].fd = p.recvs[static_cast<std::size_t>(k)].fd =
          fds[static_cast<std::size_t>(k)];
      threadOf(k, true).adopt(&p.sends[static_cast<std::size_t>(k)]);
      threadOf(k, false).adopt(&p.recvs[static_cast<std::size_t>(k)]);
    }
    markProgress(r);
    p.connected.store(true, std::memory_order_release);
  }

  // The higher rank of a pair dials on its first post to the peer; the lower
  // one's posts queue until its acceptor has the streams.
  Status ensureConnected(int peer) {
    Peer& p = peers_[static_cast<std::size_t>(peer)];
    if (p.connected.load(std::memory_order_acquire) || rank_ < peer) return okStatus();
    auto fds = tcp::dialPeer(dir_, rank_, peer, conns_, options_, Clock::now() + options_.stall_timeout);
    if (!fds) return abandon(fds.error());
    attach(peer, *fds);
    return okStatus();
  }

  IoThread& threadOf(int k, bool send) {
    return *threads_[static_cast<std::size_t>(2 * (k % per_direction_) + (send ? 0 : 1))];
  }

  Result<RequestId> post(int peer, bool send, char* data, std::size_t bytes) {
    if (peer < 0 || peer >= size_) {
      return makeError(ErrorCode::kInternal, "tcp transport: no rank " + std::to_string(peer));
    }
    if (stopped_.load(std::memory_order_relaxed)) {
      if (auto f = requests_.failure()) return tl::unexpected(*f);
    }
    RequestId id = ++next_;
    if (bytes == 0) return id;
    if (peer == rank_) {
      requests_.postSelf(id, rank_, send, data, bytes);
      return id;
    }
    if (auto s = ensureConnected(peer); !s) return tl::unexpected(s.error());
    Peer& p = peers_[static_cast<std::size_t>(peer)];
    // A parked receive must reach its lane's thread before anything posted after it.
    if (!send) unparkPeer(p);
    std::uint64_t* offset = send ? &p.send_offset : &p.recv_offset;
    // Cut into stripes first, so the request is known before a thread can finish a piece of it.
    for (auto& c : cuts_) c.clear();
    std::size_t segments = 0;
    int last_k = 0;
    while (bytes > 0) {
      std::size_t in_stripe = tcp::kStripeBytes - static_cast<std::size_t>(*offset % tcp::kStripeBytes);
      std::size_t n = std::min(bytes, in_stripe);
      last_k = static_cast<int>((*offset / tcp::kStripeBytes) % static_cast<std::uint64_t>(conns_));
      cuts_[static_cast<std::size_t>(last_k)].push_back(Segment{id, data, n});
      ++segments;
      data += n;
      bytes -= n;
      *offset += n;
    }
    if (segments == 1) {
      Segment& seg = cuts_[static_cast<std::size_t>(last_k)][0];
      Lane& lane = laneOf(p, last_k, send);
      if (seg.left <= tcp::kInlineBytes && p.connected.load(std::memory_order_acquire) &&
          lane.owned.load(std::memory_order_acquire) == 0) {
        bool moved = false;
        auto err = tcp::moveSegment(lane, seg, &moved);
        if (moved) markProgress(peer);
        if (err) {
          fail(peer, *err);
          return tl::unexpected(abandon(*requests_.failure()).error());
        }
        if (seg.left == 0) return id;
        if (!send) {
          requests_.add(id, 1, peer);
          lane.parked = seg;
          parked_.push_back(&lane);
          return id;
        }
      }
    }
    requests_.add(id, segments, peer);
    // Hand each connection's pieces to its thread, one lock and one wake-up per thread.
    for (int k = 0; k < conns_; ++k)
      threadOf(k, send).hand(laneOf(p, k, send), cuts_[static_cast<std::size_t>(k)]);
    return id;
  }

  static Lane& laneOf(Peer& p, int k, bool send) {
    return send ? p.sends[static_cast<std::size_t>(k)] : p.recvs[static_cast<std::size_t>(k)];
  }

  Lane* parkedLane(RequestId id) const {
    for (Lane* l : parked_) {
      if (l->parked->id == id) return l;
    }
    return nullptr;
  }

  // Hands a parked receive to its lane's I/O thread.
  void unpark(Lane& lane) {
    threadOf(lane.index, false).hand(lane, std::span<const Segment>(&*lane.parked, 1));
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

  // wait() when every pending request is a parked receive: the caller reads
  // the sockets itself, bounded by the stall timeout like the I/O threads.
  Status waitParked(const std::vector<RequestId>& ids) {
    tcp::StallWatch watch(options_.stall_timeout);
    std::vector<pollfd> fds;
    std::vector<int> ranks;
    while (true) {
      if (auto f = requests_.failure()) return tl::unexpected(*f);
      fds.clear();
      ranks.clear();
      std::int64_t last = watch.start();
      for (RequestId id : ids) {
        Lane* l = parkedLane(id);
        if (l == nullptr) continue;
        Segment& seg = *l->parked;
        bool moved = false;
        auto err = tcp::moveSegment(*l, seg, &moved);
        if (moved) markProgress(l->rank);
        if (err) {
          fail(l->rank, *err);
          return tl::unexpected(*requests_.failure());
        }
        if (seg.left == 0) {
          l->parked.reset();
          parked_.erase(std::find(parked_.begin(), parked_.end(), l));
          requests_.erase(id);
          continue;
        }
        fds.push_back(pollfd{l->fd, POLLIN, 0});
        ranks.push_back(l->rank);
        last = std::max(last, lastProgress(l->rank));
      }
      if (fds.empty()) return okStatus();
      auto sleep = watch.nextSleep(last);
      if (!sleep) return tl::unexpected(stalled(ranks));
      if (poll(fds.data(), fds.size(), static_cast<int>(sleep->count())) < 0 && errno != EINTR) {
        return makeError(ErrorCode::kIo, std::string("poll: ") + strerror(errno));
      }
    }
  }

  void fail(int r, const std::string& why) {
    requests_.fail(r < 0 ? Error{ErrorCode::kIo, why}
                         : Error{ErrorCode::kPeerLost, "lost " + describe(r) + ": " + why});
  }

  std::string describe(int r) const {
    return tcp::describePeer(infos_[static_cast<std::size_t>(r)], options_);
  }

  Error stalled(const std::vector<int>& ranks) const {
    std::string who;
    for (int r : ranks) {
      who += (who.empty() ? "" : ", ") + describe(r);
      if (!peers_[static_cast<std::size_t>(r)].connected.load(std::memory_order_acquire))
        who += " (no stream yet: it has not dialled this rank)";
    }
    if (who.empty()) who = "no peer";
    return Error{ErrorCode::kTimeout, "no progress for " + std::to_string(options_.stall_timeout.count()) +
                                          " ms (--stall-timeout) with " + who};
  }

  int rank_, size_;
  int conns_ = 1;
  int per_direction_ = 1;  // I/O threads per direction
  TransportOptions options_;
  std::vector<Peer> peers_;
  std::vector<PeerInfo> infos_;
  tcp::Directory dir_;
  std::unique_ptr<tcp::StreamAcceptor> acceptor_;
  std::vector<std::unique_ptr<IoThread>> threads_;
  std::atomic<bool> stopped_{false};
  std::vector<std::vector<Segment>> cuts_;  // post()'s scratch, per connection
  std::vector<Lane*> parked_;               // lanes holding a parked receive (caller's thread only)
  RequestId next_ = 0;
  tcp::RequestTable requests_;  // shared with the I/O threads
};

}  // namespace

Result<std::unique_ptr<Transport>> makeTcpTransport(Bootstrap& bootstrap, const TransportOptions& options) {
  auto t = std::make_unique<TcpTransport>(bootstrap.rank(), bootstrap.size(), options);
  if (auto s = t->setUp(bootstrap); !s) return tl::unexpected(s.error());
  return std::unique_ptr<Transport>(std::move(t));
}

}  // namespace railkit::bench
