#pragma once
// `bench p2p`: rank 0 -> rank 1 over the transport, printed the way perftest
// prints `ib_write_bw -a` (a size sweep 2 B .. max) followed by an
// `ib_write_lat` style ping-pong latency line at 2 bytes. Other ranks idle.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "bench/transport.h"

namespace railkit::bench {

struct P2pOptions {
  std::uint64_t max_bytes = 8 << 20;
  int iters = 1000;      // bandwidth iterations per size
  int lat_iters = 1000;  // ping-pong round trips
};

std::string formatBwRow(std::uint64_t bytes, std::uint64_t iters, double peak_gbps, double avg_gbps,
                        double mpps);

Result<nlohmann::json> runP2p(Transport& t, const P2pOptions& options, std::ostream* text);

}  // namespace railkit::bench
