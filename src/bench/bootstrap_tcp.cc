// The env/local bootstrap: the rendezvous of rendezvous.h over TCP. Rank 0
// serves the hellos (rendezvous_server.cc) and then relays every allgather;
// the other ranks say hello, retrying while rank 0 turns them away for a
// reason that can pass (a stranger holding their slot), and then talk to
// rank 0 only.
#include <poll.h>

#include <algorithm>
#include <cstdio>
#include <thread>
#include <vector>

#include "bench/bootstrap.h"
#include "bench/rendezvous.h"
#include "bench/rendezvous_server.h"
#include "bench/socket_util.h"
#include "core/strings.h"

namespace railkit::bench {
namespace {

constexpr std::size_t kMaxLine = 2 * Bootstrap::kMaxBlobBytes + 256;
constexpr std::size_t kMaxAbortReason = 1024;
constexpr std::size_t kMaxAbortLine = 2 * kMaxAbortReason + 16;

class TcpBootstrap final : public Bootstrap {
 public:
  explicit TcpBootstrap(BootstrapOptions options) : options_(std::move(options)) {
    if (!options_.notice) {
      options_.notice = [](const std::string& line) { std::fprintf(stderr, "railkit: %s\n", line.c_str()); };
    }
  }
  ~TcpBootstrap() override {
    for (auto& peer : peers_) closeFd(peer.fd());
    closeFd(master_.fd());
  }
  const char* kind() const override { return options_.kind.c_str(); }
  int rank() const override { return options_.rank; }
  int size() const override { return options_.size; }

  Result<std::vector<std::string>> allgather(const std::string& mine) override {
    if (mine.size() > kMaxBlobBytes) return tooLarge(mine.size(), kMaxBlobBytes);
    std::vector<std::string> all;
    if (!started_) {
      auto deadline = Clock::now() + options_.timeout;
      auto s = options_.rank == 0 ? serve(mine, &all, deadline) : join(mine, &all, deadline);
      if (!s) return tl::unexpected(s.error());
      return all;
    }
    auto deadline = Clock::now() + options_.timeout;
    if (options_.rank == 0) {
      auto up = collect(mine, kMaxLine, deadline);
      if (!up) return tl::unexpected(up.error());
      if (auto s = broadcast(*up, deadline); !s) return tl::unexpected(s.error());
      return up;
    }
    if (auto s = sendUp(mine, deadline); !s) return tl::unexpected(s.error());
    if (auto s = readAll(&all, deadline); !s) return tl::unexpected(s.error());
    return all;
  }

  Result<std::vector<std::string>> gather(const std::string& mine) override {
    if (mine.size() > kMaxGatherBytes) return tooLarge(mine.size(), kMaxGatherBytes);
    // The first exchange is the rendezvous itself, which is an allgather.
    if (!started_) {
      auto all = allgather(std::string());
      if (!all) return all;
    }
    auto deadline = Clock::now() + options_.timeout;
    if (options_.rank == 0) return collect(mine, 2 * kMaxGatherBytes + 16, deadline);
    if (auto s = sendUp(mine, deadline); !s) return tl::unexpected(s.error());
    return std::vector<std::string>{};
  }

  void abort(const std::string& why) override {
    if (!started_ || options_.rank == 0 || master_.fd() < 0) return;
    std::string line(1, '!');
    line += hexEncode(why.substr(0, kMaxAbortReason));
    line += '\n';
    (void)sendAll(master_.fd(), line.data(), line.size(), Clock::now() + std::chrono::seconds(2));
  }

  Status barrier() override {
    if (!started_) {
      auto all = allgather(std::string());
      if (!all) return tl::unexpected(all.error());
      return okStatus();
    }
    auto deadline = Clock::now() + options_.timeout;
    if (options_.rank == 0) {
      // Room for a rank's "!<hex reason>": one that gave up in the middle of
      // the pairs may send it while rank 0 waits here.
      auto up = collect(std::string(), kMaxAbortLine, deadline);
      if (!up) return tl::unexpected(up.error());
      static constexpr char kGo[] = "go\n";
      for (int r = 1; r < options_.size; ++r) {
        if (auto s = sendAll(peers_[r].fd(), kGo, sizeof kGo - 1, deadline); !s) {
          return makeError(ErrorCode::kPeerLost, describe(r) + " left the bootstrap: " + s.error().message);
        }
      }
      return okStatus();
    }
    if (auto s = sendUp(std::string(), deadline); !s) return s;
    auto line = master_.readLine(16, deadline);
    if (!line || *line != "go") {
      return makeError(
          !line && line.error().code == ErrorCode::kTimeout ? ErrorCode::kTimeout : ErrorCode::kPeerLost,
          "rank 0 (" + master() +
              ") did not end the barrier: " + (line ? std::string("malformed reply") : line.error().message));
    }
    return okStatus();
  }

 private:
  static tl::unexpected<Error> tooLarge(std::size_t bytes, std::size_t limit) {
    return makeError(ErrorCode::kInternal, "bootstrap blob of " + std::to_string(bytes) +
                                               " bytes is over the " + std::to_string(limit) + "-byte limit");
  }

  // Rank 0: one line from every other rank, in rank order (the lines wait in
  // the kernel's socket buffers, so reading them in order costs nothing; each
  // is read in blocks, not a recv per byte).
  Result<std::vector<std::string>> collect(const std::string& mine, std::size_t max_line,
                                           Clock::time_point deadline) {
    std::vector<std::string> all(static_cast<std::size_t>(options_.size));
    all[0] = mine;
    auto next_notice = Clock::now() + options_.waiting_notice;
    for (int r = 1; r < options_.size; ++r) {
      awaitRank(r, deadline, next_notice);
      auto line = peers_[r].readLine(max_line, deadline);
      if (line && !line->empty() && (*line)[0] == '!') {
        auto why = hexDecode(std::string_view(*line).substr(1));
        return makeError(ErrorCode::kPeerLost, "rank " + std::to_string(r) + " gave up: " +
                                                   (why ? *why : std::string("(no reason it could send)")));
      }
      auto blob = line ? hexDecode(*line == "-" ? "" : *line) : std::nullopt;
      if (!blob) {
        return makeError(
            line || line.error().code != ErrorCode::kTimeout ? ErrorCode::kPeerLost : ErrorCode::kTimeout,
            describe(r) + " left the bootstrap: " + (line ? "malformed reply" : line.error().message));
      }
      all[static_cast<std::size_t>(r)] = std::move(*blob);
    }
    return all;
  }

  // Rank 0 reads the ranks in order; while rank r has sent nothing it names,
  // every waiting_notice, the ranks that have not reached this call yet, so a
  // phase stuck on a slow or hung node says which (the lines already sent
  // wait in the sockets and are not read here).
  void awaitRank(int r, Clock::time_point deadline, Clock::time_point& next_notice) {
    while (!peers_[r].hasBuffered()) {
      auto now = Clock::now();
      if (now >= deadline) return;
      auto until = std::min(deadline, next_notice);
      pollfd pfd{peers_[r].fd(), POLLIN, 0};
      auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(until - now).count();
      if (::poll(&pfd, 1, static_cast<int>(std::max<long long>(ms, 1))) != 0)
        return;  // data, EOF or an error
      if (Clock::now() < next_notice) continue;
      next_notice = Clock::now() + options_.waiting_notice;
      options_.notice(waitingFor(r));
    }
  }

  // "rank 0: waiting for 3 of 255 rank(s): 7, 12, 200" (at most 10 named).
  std::string waitingFor(int from) {
    std::vector<int> missing;
    for (int r = from; r < options_.size; ++r) {
      if (peers_[r].hasBuffered()) continue;
      pollfd pfd{peers_[r].fd(), POLLIN, 0};
      if (::poll(&pfd, 1, 0) == 0) missing.push_back(r);
    }
    std::string names;
    for (std::size_t i = 0; i < missing.size() && i < 10; ++i)
      names += (i ? ", " : "") + std::to_string(missing[i]);
    if (missing.size() > 10) names += ", ...";
    return "rank 0: waiting for " + std::to_string(missing.size()) + " of " +
           std::to_string(options_.size - 1) + " rank(s): " + names;
  }

  Status sendUp(const std::string& mine, Clock::time_point deadline) {
    std::string hex = hexEncode(mine);
    std::string line = (hex.empty() ? "-" : hex) + "\n";
    if (auto s = sendAll(master_.fd(), line.data(), line.size(), deadline); !s) {
      return makeError(ErrorCode::kPeerLost, "rank 0 (" + master() + ") lost: " + s.error().message);
    }
    return okStatus();
  }

  // One attempt: greeting, hello, reply. kUnavailable when rank 0 turned
  // this hello away for a reason that may pass, so the caller tries again.
  Status joinOnce(const std::string& mine, std::vector<std::string>* all, Clock::time_point deadline) {
    auto fd = connectTo(options_.master_addr, options_.master_port, options_.control_address, deadline);
    if (!fd) {
      return makeError(ErrorCode::kTimeout,
                       "rank 0 (" + master() + ") not reachable within the " + seconds(options_.timeout) +
                           " s bootstrap timeout (--bootstrap-timeout): " + fd.error().message);
    }
    closeFd(master_.fd());
    setNoDelay(*fd);
    master_ = LineReader(*fd);
    auto greeting = master_.readLine(256, deadline);
    if (!greeting) return lostMaster("sent no rendezvous greeting (an older railkit?)", greeting.error());
    auto nonce = parseRendezvousNonce(*greeting);
    if (!nonce) {
      return makeError(ErrorCode::kPeerLost, "rank 0 (" + master() +
                                                 ") is not a railkit rendezvous of protocol version " +
                                                 std::to_string(kRendezvousVersion) +
                                                 " (an older railkit, or another service on MASTER_PORT)");
    }
    RendezvousHello hello{kRendezvousVersion, options_.job_id, options_.rank, options_.size, mine, ""};
    if (!options_.job_token.empty()) hello.mac = helloMac(options_.job_token, *nonce, hello);
    std::string line = formatRendezvousHello(hello) + "\n";
    if (auto s = sendAll(master_.fd(), line.data(), line.size(), deadline); !s)
      return lostMaster("lost", s.error());
    return readAll(all, deadline);
  }

  Status join(const std::string& mine, std::vector<std::string>* all, Clock::time_point deadline) {
    std::string last;
    while (true) {
      auto s = joinOnce(mine, all, deadline);
      if (s) {
        started_ = true;
        return s;
      }
      if (s.error().code != ErrorCode::kUnavailable) return s;
      if (s.error().message != last) {
        options_.notice("rank " + std::to_string(options_.rank) + ": " + s.error().message +
                        "; trying again");
      }
      last = s.error().message;
      if (Clock::now() + std::chrono::milliseconds(300) >= deadline) {
        return makeError(ErrorCode::kTimeout, "bootstrap timed out after " + seconds(options_.timeout) +
                                                  " s (--bootstrap-timeout): " + last);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
    }
  }

  Status lostMaster(const std::string& what, const Error& e) {
    return makeError(e.code == ErrorCode::kTimeout ? ErrorCode::kTimeout : ErrorCode::kPeerLost,
                     "rank 0 (" + master() + ") " + what + ": " + e.message);
  }

  Status serve(const std::string& mine, std::vector<std::string>* all, Clock::time_point deadline) {
    // One socket per rank (and the data plane's later): raise the soft limit
    // before the rendezvous, not in the middle of it.
    if (auto s = ensureFdLimit(static_cast<std::size_t>(options_.size) + 64); !s) {
      if (options_.inherited_listener >= 0) closeFd(options_.inherited_listener);
      return s;
    }
    int port = options_.master_port;
    auto listener = options_.inherited_listener >= 0
                        ? Result<int>(options_.inherited_listener)
                        : listenOn(options_.control_address, options_.master_port, &port);
    if (!listener) return tl::unexpected(listener.error());
    // As many hellos may wait at once as the job has ranks (an Indexed Job
    // starts them all together); strangers are still bounded by the same cap.
    HelloServerOptions server{options_.job_id,
                              options_.size,
                              options_.job_token,
                              options_.hello_timeout,
                              std::max<std::size_t>(64, static_cast<std::size_t>(options_.size)),
                              options_.notice};
    auto arrivals = serveHellos(*listener, server, deadline);
    closeFd(*listener);
    if (!arrivals) {
      if (arrivals.error().code != ErrorCode::kTimeout) return tl::unexpected(arrivals.error());
      return makeError(ErrorCode::kTimeout, "bootstrap timed out after " + seconds(options_.timeout) +
                                                " s (--bootstrap-timeout) waiting for rank(s) " +
                                                arrivals.error().message + " of job " + options_.job_id +
                                                " at the rendezvous " + listenAddress(port));
    }
    peers_.assign(options_.size, LineReader());
    peer_addrs_.assign(options_.size, "?");
    all->assign(options_.size, "");
    (*all)[0] = mine;
    for (int r = 1; r < options_.size; ++r) {
      auto& a = (*arrivals)[static_cast<std::size_t>(r)];
      setNoDelay(a.fd);
      peers_[r] = LineReader(a.fd);
      peer_addrs_[r] = a.address;
      (*all)[r] = std::move(a.blob);
    }
    started_ = true;
    return broadcast(*all, deadline);
  }
  Status broadcast(const std::vector<std::string>& all, Clock::time_point deadline) {
    std::string line = std::to_string(all.size());
    for (const auto& blob : all) {
      std::string hex = hexEncode(blob);
      line.push_back(' ');
      line.append(hex.empty() ? std::string("-") : hex);
    }
    line += "\n";
    for (int r = 1; r < options_.size; ++r) {
      if (auto s = sendAll(peers_[r].fd(), line.data(), line.size(), deadline); !s) {
        return makeError(ErrorCode::kPeerLost, describe(r) + " left the bootstrap: " + s.error().message);
      }
    }
    return okStatus();
  }

  Status readAll(std::vector<std::string>* all, Clock::time_point deadline) {
    auto line = master_.readLine(kMaxLine * static_cast<std::size_t>(options_.size), deadline);
    if (!line) {
      return makeError(line.error().code == ErrorCode::kTimeout ? ErrorCode::kTimeout : ErrorCode::kPeerLost,
                       "rank 0 (" + master() + ") did not complete the bootstrap: " + line.error().message);
    }
    constexpr std::string_view kRefused = "RAILKIT-RDV-REFUSED ";
    if (!started_ && line->rfind(kRefused, 0) == 0) {
      std::string why = line->substr(kRefused.size(), 300);
      if (why.rfind("again: ", 0) == 0) {
        return makeError(ErrorCode::kUnavailable,
                         "rank 0 (" + master() + ") turned this hello away: " + why.substr(7));
      }
      return makeError(ErrorCode::kUsage,
                       "rank 0 (" + master() + ") refused rank " + std::to_string(options_.rank) + ": " +
                           why + " (every rank needs the same --job-id, WORLD_SIZE and job token)");
    }
    auto fields = split(*line, ' ');
    if (fields.size() != static_cast<std::size_t>(options_.size) + 1) {
      return makeError(ErrorCode::kPeerLost, "rank 0 sent a malformed bootstrap reply");
    }
    all->clear();
    for (std::size_t i = 1; i < fields.size(); ++i) {
      auto blob = hexDecode(fields[i] == "-" ? "" : fields[i]);
      if (!blob) return makeError(ErrorCode::kPeerLost, "rank 0 sent a malformed bootstrap reply");
      all->push_back(*blob);
    }
    return okStatus();
  }

  static std::string seconds(std::chrono::milliseconds ms) {
    auto s = std::to_string(static_cast<double>(ms.count()) / 1000.0);
    s.erase(s.find_last_not_of('0') + 1);
    if (!s.empty() && s.back() == '.') s.pop_back();
    return s;
  }
  std::string localInterface() const {
    return options_.control_address.empty() ? std::string("any")
                                            : interfaceOfAddress(options_.control_address);
  }
  // Where rank 0 is, as seen from here: its address and our control interface.
  std::string master() const {
    return "host " + options_.master_addr + ":" + std::to_string(options_.master_port) +
           ", via local interface " + localInterface() + " " +
           (options_.control_address.empty() ? "" : options_.control_address);
  }
  std::string listenAddress(int port) const {
    return (options_.control_address.empty() ? std::string("*") : options_.control_address) + ":" +
           std::to_string(port) + " on interface " + localInterface();
  }
  // A peer as rank 0 knows it: the address it connected from.
  std::string describe(int r) const {
    std::string from = static_cast<std::size_t>(r) < peer_addrs_.size() ? peer_addrs_[r] : "?";
    return "rank " + std::to_string(r) + " (host " + from + ", via interface " + localInterface() + ")";
  }

  BootstrapOptions options_;
  std::vector<std::string> peer_addrs_;
  bool started_ = false;
  LineReader master_;
  std::vector<LineReader> peers_;
};

}  // namespace

Result<std::unique_ptr<Bootstrap>> makeTcpBootstrap(const BootstrapOptions& options) {
  if (options.size < 1 || options.rank < 0 || options.rank >= options.size) {
    return makeError(ErrorCode::kUsage, "rank " + std::to_string(options.rank) + " outside world size " +
                                            std::to_string(options.size));
  }
  return std::unique_ptr<Bootstrap>(new TcpBootstrap(options));
}

std::string defaultJobId(const std::string& master_addr, int master_port, int world_size) {
  return "rk-" + master_addr + "-" + std::to_string(master_port) + "-" + std::to_string(world_size);
}

}  // namespace railkit::bench
