#pragma once
// The UCX backend's decisions that need no UCX library: which UCX settings a
// run uses, how a rank describes itself to its peers, and how messages are
// tagged. Kept apart so they are unit-tested without a UCP context.
//
// Settings: every UCX_* entry the CLI passed in TransportOptions::env is
// applied as given (UCX_TLS, UCX_NET_DEVICES honoured from the user's
// environment). When the user did not name devices, NET_DEVICES becomes the
// data interface (--data-if), plus the RDMA ports whose netdev it is
// ("net1,mlx5_3:1"), so UCX's bytes take the data plane: over tcp on net1,
// over RDMA on the HCA behind net1.
//
// Tags: UCP matches a receive against (sender, sequence number). Each
// direction of each pair counts its own messages, so the n-th receive posted
// for a peer matches that peer's n-th send: the FIFO order Transport promises.

#include <cstdint>
#include <string>
#include <vector>

#include "bench/transport.h"
#include "core/result.h"

namespace railkit::bench::ucx {

struct Setting {
  std::string name;  // without the UCX_ prefix, as ucp_config_modify wants it: "TLS"
  std::string value;
};

// Settings in the order to apply them; `rdma_ports` are "dev:port" names
// whose netdev is the data interface (empty off RDMA hardware).
std::vector<Setting> settingsFor(const TransportOptions& options, const std::vector<std::string>& rdma_ports);

// The UCX_NET_DEVICES value in `settings`, or `fallback` when UCX picks
// devices itself: what rank lines and messages call the rank's interface.
std::string devicesInUse(const std::vector<Setting>& settings, const std::string& fallback);

// "UCX_TLS=tcp UCX_NET_DEVICES=net1", for messages.
std::string describeSettings(const std::vector<Setting>& settings);

// What a rank publishes through the bootstrap.
struct PeerCard {
  std::string address;  // data-plane IPv4 (informational: UCX carries its own)
  std::string host;
  std::string interface;
  std::string worker;  // ucp worker address, raw bytes
};

std::string encodeCard(const PeerCard& card);
// kPeerLost naming `rank` when the blob is not a card.
Result<PeerCard> decodeCard(const std::string& blob, int rank);

inline constexpr int kTagSenderShift = 40;
inline constexpr std::uint64_t kTagSeqMask = (std::uint64_t{1} << kTagSenderShift) - 1;
inline constexpr int kMaxRanks = 1 << (64 - kTagSenderShift);

inline std::uint64_t messageTag(int sender, std::uint64_t seq) {
  return (static_cast<std::uint64_t>(sender) << kTagSenderShift) | (seq & kTagSeqMask);
}

}  // namespace railkit::bench::ucx
