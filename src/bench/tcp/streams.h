#pragma once
// Setting up the tcp transport's streams. Every rank listens on its data
// address and publishes "address port host interface cookie" through the
// bootstrap; then higher ranks connect to lower ones, K streams each, and
// open each stream with a DataHello carrying the lower rank's cookie (see
// data_accept.h).

#include <string>
#include <vector>

#include "bench/bootstrap.h"
#include "bench/transport.h"

namespace railkit::bench::tcp {

struct Streams {
  std::vector<PeerInfo> peers;        // every rank's, by rank
  std::vector<std::vector<int>> fds;  // fds[rank][k]; -1 for this rank itself
};

// The connected streams, or the error naming the peer that could not be
// reached or did not connect. On error no fd is left open.
Result<Streams> connectStreams(Bootstrap& bootstrap, int connections, const TransportOptions& options);

// "rank R (host H, interface I, A:P; local interface L)" for messages.
std::string describePeer(const PeerInfo& peer, const TransportOptions& options);

}  // namespace railkit::bench::tcp
