#pragma once
// The wire format of the control-plane rendezvous behind the env and local
// bootstraps (bootstrap_tcp.cc, rendezvous_server.cc). Rank 0 listens on
// MASTER_PORT and greets every connection at once with a fresh random nonce:
//   RAILKIT-RDV-NONCE <version> <hex-nonce>
// the client answers with one hello:
//   RAILKIT-RDV <version> <job-id> <rank> <world-size> <hex-blob> <hex-mac>
// where the mac is "-" without a job token, otherwise
// HMAC-SHA256(token, helloMacInput(nonce, hello)): it binds the hello to
// this connection's nonce, so a hello seen on the wire cannot be replayed.
// Rank 0 checks version, job id, world size, rank range and mac; anything
// else is dropped (and, when it was a railkit hello, answered with
//   RAILKIT-RDV-REFUSED <reason>
// so the rank can say why). Once every rank has arrived the connections stay
// open and each allgather is one line up from every rank and one line down
// with all blobs.

#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"

namespace railkit::bench {

// 2: nonce greeting, mac field, refusal line. 3: gather (lines up only) and
// a barrier of short lines ("-" up, "go" down) instead of an allgather; a
// rank that gives up sends "!<hex reason>" up.
inline constexpr int kRendezvousVersion = 3;
inline constexpr std::size_t kRendezvousNonceBytes = 16;
inline constexpr int kMaxWorldSize = 65536;
inline constexpr std::size_t kMaxJobIdChars = 256;

struct RendezvousHello {
  int version = 0;
  std::string job_id;
  int rank = -1;
  int size = 0;
  std::string blob;  // decoded
  std::string mac;   // decoded; empty without a job token
};

// Parses one hello line (no newline); kInvalidInput on anything malformed,
// with a message that names a foreign protocol version.
Result<RendezvousHello> parseRendezvousHello(std::string_view line);
std::string formatRendezvousHello(const RendezvousHello& hello);

std::string formatRendezvousNonce(std::string_view nonce);
// The nonce of a greeting line; kInvalidInput when it is not one.
Result<std::string> parseRendezvousNonce(std::string_view line);

// What the mac covers: every field of the hello and the nonce.
std::string helloMacInput(std::string_view nonce, const RendezvousHello& hello);
// The mac a rank with `token` sends for `hello` on a connection greeted with `nonce`.
std::string helloMac(std::string_view token, std::string_view nonce, const RendezvousHello& hello);

struct HelloExpectation {
  std::string job_id;
  int size = 0;
  std::string token;  // empty: no job token, the mac must be absent
  std::string nonce;  // sent on this connection
};
// Why rank 0 refuses `hello` (a short phrase), or nullopt when it is one of
// this job's ranks. The mac is compared in constant time.
std::optional<std::string> refuseHello(const RendezvousHello& hello, const HelloExpectation& expect);

std::string hexEncode(std::string_view bytes);
std::optional<std::string> hexDecode(std::string_view hex);

}  // namespace railkit::bench
