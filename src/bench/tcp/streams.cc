// The tcp transport's stream set-up (see streams.h).
#include "bench/tcp/streams.h"

#include <algorithm>
#include <cstdio>

#include "bench/data_accept.h"
#include "bench/job_token.h"
#include "bench/rendezvous.h"
#include "bench/socket_util.h"
#include "core/strings.h"

namespace railkit::bench::tcp {
namespace {

struct Endpoint {
  std::string address;
  int port = 0;
  std::string cookie;
};

void closeAll(std::vector<std::vector<int>>& fds) {
  for (auto& row : fds) {
    for (int& fd : row) {
      closeFd(fd);
      fd = -1;
    }
  }
}

std::string missingPeers(const Streams& streams, int rank, const TransportOptions& options) {
  std::string out;
  for (std::size_t r = static_cast<std::size_t>(rank) + 1; r < streams.fds.size(); ++r) {
    const auto& row = streams.fds[r];
    if (std::all_of(row.begin(), row.end(), [](int fd) { return fd >= 0; })) continue;
    if (!out.empty()) out += ", ";
    out += describePeer(streams.peers[r], options);
  }
  return out;
}

// Connects to every lower rank and accepts every higher one, filling streams.fds.
Status connectAll(Streams& streams, const std::vector<Endpoint>& endpoints, int rank, int listener,
                  const std::string& my_cookie, const TransportOptions& options) {
  const int size = static_cast<int>(endpoints.size());
  const int conns = static_cast<int>(streams.fds[0].size());
  auto deadline = Clock::now() + options.stall_timeout;
  int user_timeout = static_cast<int>(options.stall_timeout.count());
  for (int r = 0; r < rank; ++r) {
    const Endpoint& to = endpoints[static_cast<std::size_t>(r)];
    for (int k = 0; k < conns; ++k) {
      auto fd = connectTo(to.address, to.port, options.data_address, deadline);
      if (!fd) {
        return makeError(ErrorCode::kPeerLost,
                         "cannot reach " + describePeer(streams.peers[static_cast<std::size_t>(r)], options) +
                             ": " + fd.error().message);
      }
      tuneDataSocket(*fd, user_timeout, options.socket_buffer_bytes);
      streams.fds[static_cast<std::size_t>(r)][static_cast<std::size_t>(k)] = *fd;
      DataHello hello{kDataMagic, rank, k, {}};
      std::copy(to.cookie.begin(), to.cookie.end(), hello.cookie.begin());
      if (auto s = sendAll(*fd, &hello, sizeof hello, deadline); !s) {
        return makeError(ErrorCode::kPeerLost,
                         "lost " + describePeer(streams.peers[static_cast<std::size_t>(r)], options) + ": " +
                             s.error().message);
      }
    }
  }
  DataAcceptOptions accept;
  accept.cookie = my_cookie;
  accept.expected = (size - 1 - rank) * conns;
  // Every higher rank may be connecting at once (rank 0 hears from all of
  // them); a cap below that would drop real streams, not just strangers.
  accept.max_pending = std::max<std::size_t>(accept.max_pending, static_cast<std::size_t>(accept.expected));
  accept.wanted = [&](const DataHello& h) {
    return h.rank > rank && h.rank < size && h.index >= 0 && h.index < conns &&
           streams.fds[static_cast<std::size_t>(h.rank)][static_cast<std::size_t>(h.index)] < 0;
  };
  accept.take = [&](int fd, const DataHello& h) {
    tuneDataSocket(fd, user_timeout, options.socket_buffer_bytes);
    streams.fds[static_cast<std::size_t>(h.rank)][static_cast<std::size_t>(h.index)] = fd;
  };
  accept.notice = [rank](const std::string& line) {
    std::fprintf(stderr, "railkit: rank %d: %s\n", rank, line.c_str());
  };
  if (auto s = acceptDataConnections(listener, accept, deadline); !s) {
    if (s.error().code != ErrorCode::kTimeout) return s;
    return makeError(ErrorCode::kTimeout,
                     "waiting for data connections from " + missingPeers(streams, rank, options));
  }
  return okStatus();
}

}  // namespace

std::string describePeer(const PeerInfo& peer, const TransportOptions& options) {
  return "rank " + std::to_string(peer.rank) + " (host " + peer.host + ", interface " + peer.interface +
         ", " + peer.address + "; local interface " +
         (options.data_interface.empty() ? "-" : options.data_interface) + ")";
}

Result<Streams> connectStreams(Bootstrap& bootstrap, int connections, const TransportOptions& options) {
  const int rank = bootstrap.rank(), size = bootstrap.size();
  // A stream per peer and connection, plus rank 0's bootstrap socket per rank.
  auto needed = static_cast<std::size_t>(size) * static_cast<std::size_t>(connections + 1) + 64;
  if (auto s = ensureFdLimit(needed); !s) return tl::unexpected(s.error());
  int port = 0;
  auto listener = listenOn(options.data_address, 0, &port);
  if (!listener) return tl::unexpected(listener.error());
  // The cookie a data connection to this rank must carry: it travels only
  // through the bootstrap, so a stranger who finds the port cannot take a stream.
  auto cookie = randomBytes(kDataCookieBytes);
  if (!cookie) {
    closeFd(*listener);
    return tl::unexpected(cookie.error());
  }
  std::string mine = options.data_address + " " + std::to_string(port) + " " + options.hostname + " " +
                     (options.data_interface.empty() ? "-" : options.data_interface) + " " +
                     hexEncode(*cookie);
  auto all = bootstrap.allgather(mine);
  if (!all) {
    closeFd(*listener);
    return tl::unexpected(all.error());
  }
  Streams streams;
  std::vector<Endpoint> endpoints;
  for (int r = 0; r < size; ++r) {
    auto f = split((*all)[static_cast<std::size_t>(r)], ' ');
    auto peer_port = f.size() == 5 ? parseUint(f[1]) : std::nullopt;
    auto peer_cookie = f.size() == 5 ? hexDecode(f[4]) : std::nullopt;
    if (!peer_port || *peer_port > 65535 || !peer_cookie || peer_cookie->size() != kDataCookieBytes) {
      closeFd(*listener);
      return makeError(ErrorCode::kPeerLost, "rank " + std::to_string(r) + " sent a bad data-plane address");
    }
    streams.peers.push_back(
        PeerInfo{r, std::string(f[2]), std::string(f[3]), std::string(f[0]) + ":" + std::string(f[1])});
    endpoints.push_back(Endpoint{std::string(f[0]), static_cast<int>(*peer_port), *peer_cookie});
  }
  streams.fds.assign(static_cast<std::size_t>(size),
                     std::vector<int>(static_cast<std::size_t>(connections), -1));
  Status s = connectAll(streams, endpoints, rank, *listener, *cookie, options);
  closeFd(*listener);
  if (!s) {
    closeAll(streams.fds);
    return tl::unexpected(s.error());
  }
  return streams;
}

}  // namespace railkit::bench::tcp
