// The tcp transport's stream set-up (see streams.h).
#include "bench/tcp/streams.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <thread>

#include "bench/data_accept.h"
#include "bench/job_token.h"
#include "bench/rendezvous.h"
#include "core/strings.h"

namespace railkit::bench::tcp {
namespace {

// Connects, says hello and waits for the acknowledgement.
Result<int> openStream(const Endpoint& to, int rank, int k, const TransportOptions& options,
                       Clock::time_point deadline) {
  auto fd = connectOnce(to.address, to.port, options.data_address, deadline);
  if (!fd) return fd;
  tuneDataSocket(*fd, static_cast<int>(options.stall_timeout.count()), options.socket_buffer_bytes);
  DataHello hello{kDataMagic, rank, k, {}};
  std::copy(to.cookie.begin(), to.cookie.end(), hello.cookie.begin());
  unsigned char ack = 0;
  Status s = sendAll(*fd, &hello, sizeof hello, deadline);
  if (s) s = recvAll(*fd, &ack, 1, deadline);
  if (s && ack != kDataAck) s = makeError(ErrorCode::kPeerLost, "answered its hello with a wrong byte");
  if (!s) {
    closeFd(*fd);
    return tl::unexpected(s.error());
  }
  return fd;
}

}  // namespace

std::string describePeer(const PeerInfo& peer, const TransportOptions& options) {
  return "rank " + std::to_string(peer.rank) + " (host " + peer.host + ", interface " + peer.interface +
         ", " + peer.address + "; local interface " +
         (options.data_interface.empty() ? "-" : options.data_interface) + ")";
}

Result<std::vector<int>> dialPeer(const Directory& dir, int rank, int to, int connections,
                                  const TransportOptions& options, Clock::time_point deadline) {
  const Endpoint& end = dir.endpoints[static_cast<std::size_t>(to)];
  std::vector<int> fds;
  auto backoff = std::chrono::milliseconds(10);
  int attempts = 0;
  std::string last;
  while (static_cast<int>(fds.size()) < connections) {
    ++attempts;
    auto fd = openStream(end, rank, static_cast<int>(fds.size()), options, deadline);
    if (fd) {
      fds.push_back(*fd);
      continue;
    }
    last = fd.error().message;
    auto now = Clock::now();
    if (now >= deadline) break;
    std::this_thread::sleep_for(
        std::min<Clock::duration>(backoff, deadline - now));  // a last try at the deadline
    backoff = std::min(backoff * 2, std::chrono::milliseconds(1000));
  }
  if (static_cast<int>(fds.size()) == connections) return fds;
  for (int fd : fds) closeFd(fd);
  return makeError(ErrorCode::kPeerLost,
                   "cannot connect to " + describePeer(dir.peers[static_cast<std::size_t>(to)], options) +
                       " within " + std::to_string(options.stall_timeout.count()) +
                       " ms (--stall-timeout), " + std::to_string(attempts) + " attempt(s): " + last);
}

StreamAcceptor::StreamAcceptor(const Directory& dir, int rank, int connections,
                               const TransportOptions& options, Connected connected)
    : listener_(dir.listener),
      cookie_(dir.cookie),
      rank_(rank),
      size_(static_cast<int>(dir.peers.size())),
      conns_(connections),
      options_(options),
      connected_(std::move(connected)),
      partial_(static_cast<std::size_t>(size_), std::vector<int>(static_cast<std::size_t>(connections), -1)),
      complete_(static_cast<std::size_t>(size_), false) {}

StreamAcceptor::~StreamAcceptor() {
  stop();
  closeFd(stop_fd_);
}

Status StreamAcceptor::start() {
  stop_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (stop_fd_ < 0) return makeError(ErrorCode::kIo, std::string("eventfd: ") + strerror(errno));
  thread_ = std::thread([this] { run(); });
  return okStatus();
}

void StreamAcceptor::stop() {
  stop_.store(true);
  if (stop_fd_ >= 0) {
    std::uint64_t one = 1;
    [[maybe_unused]] ssize_t n = ::write(stop_fd_, &one, sizeof one);
  }
  if (thread_.joinable()) thread_.join();
  for (auto& row : partial_) {
    for (int& fd : row) {
      closeFd(fd);
      fd = -1;
    }
  }
}

void StreamAcceptor::run() {
  DataAcceptOptions accept;
  accept.cookie = cookie_;
  accept.ack = true;
  accept.stop = &stop_;
  accept.stop_fd = stop_fd_;
  // A hello is sent right after the connect; what keeps it from arriving is
  // a starved dialler, which dials again when its stream is dropped.
  accept.hello_timeout = std::chrono::milliseconds(10000);
  // Each higher rank has at most its K streams in flight to us at a time.
  accept.max_pending = std::max<std::size_t>(
      accept.max_pending, static_cast<std::size_t>(std::max(0, size_ - 1 - rank_) * conns_));
  accept.wanted = [this](const DataHello& h) {
    return h.rank > rank_ && h.rank < size_ && h.index >= 0 && h.index < conns_ &&
           !complete_[static_cast<std::size_t>(h.rank)];
  };
  accept.take = [this](int fd, const DataHello& h) {
    auto& row = partial_[static_cast<std::size_t>(h.rank)];
    int& slot = row[static_cast<std::size_t>(h.index)];
    closeFd(slot);  // an earlier try of the same stream, which its dialler gave up on
    slot = fd;
    tuneDataSocket(fd, static_cast<int>(options_.stall_timeout.count()), options_.socket_buffer_bytes);
    if (std::any_of(row.begin(), row.end(), [](int f) { return f < 0; })) return;
    complete_[static_cast<std::size_t>(h.rank)] = true;
    connected_(h.rank, row);
    std::fill(row.begin(), row.end(), -1);
  };
  accept.notice = [this](const std::string& line) {
    std::fprintf(stderr, "railkit: rank %d: %s\n", rank_, line.c_str());
  };
  auto s = acceptDataConnections(listener_, accept, Clock::time_point::max());
  if (!s) std::fprintf(stderr, "railkit: rank %d: data plane: %s\n", rank_, s.error().message.c_str());
}

Result<Directory> publishEndpoints(Bootstrap& bootstrap, int connections, const TransportOptions& options) {
  const int size = bootstrap.size();
  // Lazy streams need only the peers used, but an all-to-all uses every one:
  // a stream per peer and connection, plus rank 0's bootstrap socket per rank.
  auto needed = static_cast<std::size_t>(size) * static_cast<std::size_t>(connections + 1) + 64;
  if (auto s = ensureFdLimit(needed); !s) return tl::unexpected(s.error());
  Directory dir;
  int port = 0;
  auto listener = listenOn(options.data_address, 0, &port);
  if (!listener) return tl::unexpected(listener.error());
  dir.listener = *listener;
  auto fail = [&dir](Error e) -> Result<Directory> {
    closeFd(dir.listener);
    return tl::unexpected(std::move(e));
  };
  // The cookie a data connection to this rank must carry: it travels only
  // through the bootstrap, so a stranger who finds the port cannot take a stream.
  auto cookie = randomBytes(kDataCookieBytes);
  if (!cookie) return fail(cookie.error());
  dir.cookie = *cookie;
  std::string mine = options.data_address + " " + std::to_string(port) + " " + options.hostname + " " +
                     (options.data_interface.empty() ? "-" : options.data_interface) + " " +
                     hexEncode(*cookie);
  auto all = bootstrap.allgather(mine);
  if (!all) return fail(all.error());
  for (int r = 0; r < size; ++r) {
    auto f = split((*all)[static_cast<std::size_t>(r)], ' ');
    auto peer_port = f.size() == 5 ? parseUint(f[1]) : std::nullopt;
    auto peer_cookie = f.size() == 5 ? hexDecode(f[4]) : std::nullopt;
    if (!peer_port || *peer_port > 65535 || !peer_cookie || peer_cookie->size() != kDataCookieBytes)
      return fail(
          Error{ErrorCode::kPeerLost, "rank " + std::to_string(r) + " sent a bad data-plane address"});
    dir.peers.push_back(
        PeerInfo{r, std::string(f[2]), std::string(f[3]), std::string(f[0]) + ":" + std::string(f[1])});
    dir.endpoints.push_back(Endpoint{std::string(f[0]), static_cast<int>(*peer_port), *peer_cookie});
  }
  return dir;
}

}  // namespace railkit::bench::tcp
