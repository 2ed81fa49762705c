#pragma once
// Setting up the tcp transport's streams, lazily. Every rank listens on its
// data address and publishes "address port host interface cookie" through
// the bootstrap; no stream is opened then. The first operation a rank posts
// to a peer opens the K streams to it: the higher rank of the two dials
// (dialPeer), the lower one's acceptor thread takes them (StreamAcceptor).
// Each stream opens with a DataHello carrying the lower rank's cookie (see
// data_accept.h) and is acknowledged by one byte, so a stream the acceptor
// dropped (late, or over its cap) is seen by the dialler and dialled again.
// A job that only talks to a few peers per step (the pairs schedule: one per
// round; a ring: two) opens only those: at 1024 ranks the eager full mesh was
// 523,776 connections before the first byte moved.

#include <atomic>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "bench/bootstrap.h"
#include "bench/socket_util.h"
#include "bench/transport.h"

namespace railkit::bench::tcp {

struct Endpoint {
  std::string address;
  int port = 0;
  std::string cookie;  // the listener's, kDataCookieBytes bytes
};

// What one rank knows after the endpoints' allgather.
struct Directory {
  int listener = -1;   // this rank's data listener (owned by the caller)
  std::string cookie;  // this rank's
  std::vector<PeerInfo> peers;
  std::vector<Endpoint> endpoints;
};

// Listens, exchanges endpoints through the bootstrap and raises the fd limit
// to what a full mesh would need. On error no fd is left open.
Result<Directory> publishEndpoints(Bootstrap& bootstrap, int connections, const TransportOptions& options);

// Opens `connections` streams from this rank to the lower rank `to`. A
// refused, reset or unacknowledged stream is dialled again, with a backoff
// from 10 ms doubling to 1 s, until `deadline`; then kPeerLost naming the
// peer, the attempts and the last error. On error no fd is left open.
Result<std::vector<int>> dialPeer(const Directory& dir, int rank, int to, int connections,
                                  const TransportOptions& options, Clock::time_point deadline);

// This rank's acceptor thread: takes the streams of higher ranks for as long
// as the transport lives and hands each peer's K fds to `connected` (on the
// acceptor thread) once all have arrived. A peer's stream that arrives again
// before its set is complete replaces the earlier one (the dialler gave up on
// that one); strangers and duplicates are dropped with a rate-limited notice.
class StreamAcceptor {
 public:
  using Connected = std::function<void(int rank, const std::vector<int>& fds)>;
  StreamAcceptor(const Directory& dir, int rank, int connections, const TransportOptions& options,
                 Connected connected);
  ~StreamAcceptor();
  StreamAcceptor(const StreamAcceptor&) = delete;
  StreamAcceptor& operator=(const StreamAcceptor&) = delete;
  Status start();
  // Returns once the thread has stopped; fds of incomplete sets are closed.
  void stop();

 private:
  void run();

  int listener_;
  std::string cookie_;
  int rank_, size_, conns_;
  TransportOptions options_;
  Connected connected_;
  std::vector<std::vector<int>> partial_;  // fds[rank][k] of sets not yet complete
  std::vector<bool> complete_;
  std::atomic<bool> stop_{false};
  int stop_fd_ = -1;  // eventfd, written by stop()
  std::thread thread_;
};

// "rank R (host H, interface I, A:P; local interface L)" for messages.
std::string describePeer(const PeerInfo& peer, const TransportOptions& options);

}  // namespace railkit::bench::tcp
