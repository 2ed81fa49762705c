// The env/local bootstrap: the rendezvous protocol of rendezvous.h over TCP.
#include "bench/rendezvous.h"

#include <vector>

#include "bench/bootstrap.h"
#include "bench/socket_util.h"
#include "core/strings.h"

namespace railkit::bench {

std::string hexEncode(std::string_view bytes) {
  static const char* kDigits = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

std::optional<std::string> hexDecode(std::string_view hex) {
  if (hex.size() % 2 != 0) return std::nullopt;
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  std::string out;
  for (std::size_t i = 0; i < hex.size(); i += 2) {
    int hi = nibble(hex[i]), lo = nibble(hex[i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out.push_back(static_cast<char>(hi * 16 + lo));
  }
  return out;
}

Result<RendezvousHello> parseRendezvousHello(std::string_view line) {
  auto fields = split(line, ' ');
  if (fields.size() != 6 || fields[0] != "RAILKIT-RDV") {
    return makeError(ErrorCode::kInvalidInput, "not a railkit rendezvous message");
  }
  RendezvousHello hello;
  auto version = parseUint(fields[1]);
  auto rank = parseUint(fields[3]);
  auto size = parseUint(fields[4]);
  auto blob = hexDecode(fields[5] == "-" ? "" : fields[5]);
  if (!version || !rank || !size || !blob || *size == 0 || *size > 65536 || *rank >= *size ||
      fields[2].empty() || blob->size() > Bootstrap::kMaxBlobBytes) {
    return makeError(ErrorCode::kInvalidInput, "malformed rendezvous message");
  }
  hello.version = static_cast<int>(*version);
  hello.job_id = std::string(fields[2]);
  hello.rank = static_cast<int>(*rank);
  hello.size = static_cast<int>(*size);
  hello.blob = *blob;
  return hello;
}

std::string formatRendezvousHello(const RendezvousHello& h) {
  std::string hex = hexEncode(h.blob);
  return "RAILKIT-RDV " + std::to_string(h.version) + " " + h.job_id + " " + std::to_string(h.rank) + " " +
         std::to_string(h.size) + " " + (hex.empty() ? "-" : hex);
}

namespace {

constexpr std::size_t kMaxLine = 2 * Bootstrap::kMaxBlobBytes + 256;

class TcpBootstrap final : public Bootstrap {
 public:
  explicit TcpBootstrap(BootstrapOptions options) : options_(std::move(options)) {}
  ~TcpBootstrap() override {
    for (int fd : peers_) closeFd(fd);
    closeFd(master_fd_);
  }
  const char* kind() const override { return options_.kind.c_str(); }
  int rank() const override { return options_.rank; }
  int size() const override { return options_.size; }

  Status start(const std::string& first_blob, std::vector<std::string>* all) {
    auto deadline = Clock::now() + options_.timeout;
    if (options_.rank == 0) return serve(first_blob, all, deadline);
    auto fd = connectTo(options_.master_addr, options_.master_port, options_.control_address, deadline);
    if (!fd) {
      return makeError(ErrorCode::kTimeout, "rank 0 (" + master() + ") not reachable within the " +
                                                seconds(options_.timeout) +
                                                " s bootstrap timeout (--bootstrap-timeout): " + fd.error().message);
    }
    master_fd_ = *fd;
    started_ = true;
    RendezvousHello hello{kRendezvousVersion, options_.job_id, options_.rank, options_.size, first_blob};
    std::string line = formatRendezvousHello(hello) + "\n";
    if (auto s = sendAll(master_fd_, line.data(), line.size(), deadline); !s) return s;
    return readAll(all, deadline);
  }

  Result<std::vector<std::string>> allgather(const std::string& mine) override {
    std::vector<std::string> all;
    if (!started_) {
      if (auto s = start(mine, &all); !s) return tl::unexpected(s.error());
      return all;
    }
    auto deadline = Clock::now() + options_.timeout;
    if (options_.rank == 0) {
      all.assign(options_.size, "");
      all[0] = mine;
      for (int r = 1; r < options_.size; ++r) {
        auto line = recvLine(peers_[r], kMaxLine, deadline);
        auto blob = line ? hexDecode(*line == "-" ? "" : *line) : std::nullopt;
        if (!blob) {
          return makeError(line || line.error().code != ErrorCode::kTimeout ? ErrorCode::kPeerLost : ErrorCode::kTimeout,
                           describe(r) + " left the bootstrap: " + (line ? "malformed reply" : line.error().message));
        }
        all[r] = *blob;
      }
      if (auto s = broadcast(all, deadline); !s) return tl::unexpected(s.error());
      return all;
    }
    std::string hex = hexEncode(mine);
    std::string line = (hex.empty() ? "-" : hex) + "\n";
    if (auto s = sendAll(master_fd_, line.data(), line.size(), deadline); !s) {
      return makeError(ErrorCode::kPeerLost, "rank 0 (" + master() + ") lost: " + s.error().message);
    }
    if (auto s = readAll(&all, deadline); !s) return tl::unexpected(s.error());
    return all;
  }

  Status barrier() override {
    auto r = allgather("");
    if (!r) return tl::unexpected(r.error());
    return okStatus();
  }

 private:
  Status serve(const std::string& mine, std::vector<std::string>* all, Clock::time_point deadline) {
    int port = options_.master_port;
    auto listener = options_.inherited_listener >= 0
                        ? Result<int>(options_.inherited_listener)
                        : listenOn(options_.control_address, options_.master_port, &port);
    if (!listener) return tl::unexpected(listener.error());
    peers_.assign(options_.size, -1);
    peer_addrs_.assign(options_.size, "?");
    all->assign(options_.size, "");
    (*all)[0] = mine;
    int missing = options_.size - 1;
    while (missing > 0) {
      auto fd = acceptUntil(*listener, deadline);
      if (!fd) {
        closeFd(*listener);
        std::string who;
        for (int r = 1; r < options_.size; ++r) {
          if (peers_[r] >= 0) continue;
          if (!who.empty()) who.push_back(',');
          who.append(std::to_string(r));
        }
        return makeError(ErrorCode::kTimeout, "bootstrap timed out after " + seconds(options_.timeout) +
                                                  " s (--bootstrap-timeout) waiting for rank(s) " + who + " of job " +
                                                  options_.job_id + " at the rendezvous " + listenAddress(port));
      }
      // A client gets a few seconds to introduce itself; strangers are dropped.
      auto hello_deadline = std::min(deadline, Clock::now() + std::chrono::seconds(5));
      auto line = recvLine(*fd, kMaxLine, hello_deadline);
      auto hello = line ? parseRendezvousHello(*line) : Result<RendezvousHello>(tl::unexpected(line.error()));
      if (!hello || hello->version != kRendezvousVersion || hello->job_id != options_.job_id ||
          hello->size != options_.size || hello->rank == 0 || peers_[hello->rank] >= 0) {
        closeFd(*fd);
        continue;
      }
      peers_[hello->rank] = *fd;
      peer_addrs_[hello->rank] = peerAddress(*fd);
      (*all)[hello->rank] = hello->blob;
      --missing;
    }
    closeFd(*listener);
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
      if (auto s = sendAll(peers_[r], line.data(), line.size(), deadline); !s) {
        return makeError(ErrorCode::kPeerLost, describe(r) + " left the bootstrap: " + s.error().message);
      }
    }
    return okStatus();
  }

  Status readAll(std::vector<std::string>* all, Clock::time_point deadline) {
    auto line = recvLine(master_fd_, kMaxLine * static_cast<std::size_t>(options_.size), deadline);
    if (!line) {
      return makeError(line.error().code == ErrorCode::kTimeout ? ErrorCode::kTimeout : ErrorCode::kPeerLost,
                       "rank 0 (" + master() + ") did not complete the bootstrap: " + line.error().message);
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
    return options_.control_address.empty() ? std::string("any") : interfaceOfAddress(options_.control_address);
  }
  // Where rank 0 is, as seen from here: its address and our control interface.
  std::string master() const {
    return "host " + options_.master_addr + ":" + std::to_string(options_.master_port) + ", via local interface " +
           localInterface() + " " + (options_.control_address.empty() ? "" : options_.control_address);
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
  int master_fd_ = -1;
  std::vector<int> peers_;
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
