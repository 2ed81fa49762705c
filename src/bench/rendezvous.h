#pragma once
// The control-plane rendezvous behind the env and local bootstraps. Rank 0
// listens on MASTER_PORT; every other rank connects and sends one line
//   RAILKIT-RDV <version> <job-id> <rank> <world-size> <hex-blob>
// Rank 0 checks the version, job id, world size and rank range; anything
// else (a port scanner, a stale job, garbage) is closed and ignored. Once
// every rank has arrived the connections stay open and each allgather is one
// line up from every rank and one line down with all blobs.

#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"

namespace railkit::bench {

inline constexpr int kRendezvousVersion = 1;

struct RendezvousHello {
  int version = 0;
  std::string job_id;
  int rank = -1;
  int size = 0;
  std::string blob;  // decoded
};

// Parses one hello line (no newline); kInvalidInput on anything malformed.
Result<RendezvousHello> parseRendezvousHello(std::string_view line);
std::string formatRendezvousHello(const RendezvousHello& hello);

std::string hexEncode(std::string_view bytes);
std::optional<std::string> hexDecode(std::string_view hex);

}  // namespace railkit::bench
