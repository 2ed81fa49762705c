#pragma once
// A netdev's driver statistics (what `ethtool -S IF` prints), through the
// SIOCETHTOOL ioctl of this network namespace. Only live: with --root the
// counters railkit keeps (PFC pause frames) come from the snapshot's
// railkit/live.json.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/result.h"

namespace railkit::sys {

// Every statistic of `netdev`, name and value, in the driver's order.
// kUnavailable when the driver has none (lo) or the netdev does not exist.
Result<std::vector<std::pair<std::string, uint64_t>>> liveEthtoolStats(const std::string& netdev);

// A PFC pause-frame counter named by a driver statistic: mlx5's
// rx_prio3_pause / tx_prio3_pause, bnxt's rx_pfc_ena_frames_pri3 /
// tx_pfc_ena_frames_pri3. nullopt for any other name.
struct PfcPauseStat {
  int priority = 0;
  bool received = false;  // rx (pause frames the NIC received) or tx (sent)
};
std::optional<PfcPauseStat> pfcPauseStat(std::string_view name);

}  // namespace railkit::sys
