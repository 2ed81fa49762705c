// ethtool statistics through SIOCETHTOOL (see ethtool.h).
#include "sys/ethtool.h"

#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>

namespace railkit::sys {
namespace {

// The driver reports its own count; this bounds what we allocate for it.
constexpr uint32_t kMaxStats = 1 << 16;

class EthtoolSocket {
 public:
  EthtoolSocket() : fd_(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) {}
  ~EthtoolSocket() {
    if (fd_ >= 0) ::close(fd_);
  }
  EthtoolSocket(const EthtoolSocket&) = delete;
  EthtoolSocket& operator=(const EthtoolSocket&) = delete;
  int fd() const { return fd_; }

 private:
  int fd_;
};

Status ethtool(const EthtoolSocket& socket, const std::string& netdev, void* command) {
  ifreq request{};
  std::memcpy(request.ifr_name, netdev.c_str(), netdev.size() + 1);
  request.ifr_data = static_cast<char*>(command);
  if (::ioctl(socket.fd(), SIOCETHTOOL, &request) != 0) {
    return makeError(ErrorCode::kUnavailable, netdev + ": ethtool statistics: " + std::strerror(errno));
  }
  return okStatus();
}

// The number after `prefix` when it is a single digit 0-7 ending the name at `end`.
std::optional<int> priorityAt(std::string_view name, std::string_view prefix, std::string_view suffix) {
  if (name.size() != prefix.size() + 1 + suffix.size()) return std::nullopt;
  if (name.substr(0, prefix.size()) != prefix || name.substr(prefix.size() + 1) != suffix)
    return std::nullopt;
  char digit = name[prefix.size()];
  if (digit < '0' || digit > '7') return std::nullopt;
  return digit - '0';
}

}  // namespace

Result<std::vector<std::pair<std::string, uint64_t>>> liveEthtoolStats(const std::string& netdev) {
  if (netdev.empty() || netdev.size() >= IF_NAMESIZE)
    return makeError(ErrorCode::kInvalidInput, "bad interface name");
  EthtoolSocket socket;
  if (socket.fd() < 0) return makeError(ErrorCode::kIo, std::string("socket: ") + std::strerror(errno));
  // How many statistics: the string set's size.
  // ethtool_sset_info ends in a flexible array: one uint32_t per set asked for.
  alignas(ethtool_sset_info) unsigned char sset_buffer[sizeof(ethtool_sset_info) + sizeof(uint32_t)] = {};
  auto* sset = reinterpret_cast<ethtool_sset_info*>(sset_buffer);
  sset->cmd = ETHTOOL_GSSET_INFO;
  sset->sset_mask = 1ULL << ETH_SS_STATS;
  if (auto st = ethtool(socket, netdev, sset); !st) return tl::unexpected(st.error());
  uint32_t sset_count = 0;
  std::memcpy(&sset_count, sset_buffer + sizeof(ethtool_sset_info), sizeof sset_count);
  if (!(sset->sset_mask & (1ULL << ETH_SS_STATS)) || sset_count == 0) {
    return makeError(ErrorCode::kUnavailable, netdev + ": the driver has no ethtool statistics");
  }
  uint32_t count = std::min(sset_count, kMaxStats);
  auto strings = std::make_unique<char[]>(sizeof(ethtool_gstrings) + std::size_t{count} * ETH_GSTRING_LEN);
  auto* names = reinterpret_cast<ethtool_gstrings*>(strings.get());
  names->cmd = ETHTOOL_GSTRINGS;
  names->string_set = ETH_SS_STATS;
  names->len = count;
  if (auto st = ethtool(socket, netdev, names); !st) return tl::unexpected(st.error());
  auto values = std::make_unique<char[]>(sizeof(ethtool_stats) + std::size_t{count} * sizeof(uint64_t));
  auto* stats = reinterpret_cast<ethtool_stats*>(values.get());
  stats->cmd = ETHTOOL_GSTATS;
  stats->n_stats = count;
  if (auto st = ethtool(socket, netdev, stats); !st) return tl::unexpected(st.error());
  std::vector<std::pair<std::string, uint64_t>> out;
  uint32_t got = std::min(count, stats->n_stats);
  out.reserve(got);
  for (uint32_t i = 0; i < got; ++i) {
    const char* name = reinterpret_cast<const char*>(names->data) + std::size_t{i} * ETH_GSTRING_LEN;
    uint64_t value = 0;
    std::memcpy(&value, reinterpret_cast<const char*>(stats->data) + std::size_t{i} * sizeof(uint64_t),
                sizeof value);
    out.emplace_back(std::string(name, strnlen(name, ETH_GSTRING_LEN)), value);
  }
  return out;
}

std::optional<PfcPauseStat> pfcPauseStat(std::string_view name) {
  for (bool rx : {true, false}) {
    std::string_view dir = rx ? "rx_" : "tx_";
    if (name.substr(0, 3) != dir) continue;
    std::string_view rest = name.substr(3);
    if (auto p = priorityAt(rest, "prio", "_pause")) return PfcPauseStat{*p, rx};          // mlx5
    if (auto p = priorityAt(rest, "pfc_ena_frames_pri", "")) return PfcPauseStat{*p, rx};  // bnxt
  }
  return std::nullopt;
}

}  // namespace railkit::sys
