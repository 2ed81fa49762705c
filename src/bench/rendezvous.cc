// The rendezvous wire format (rendezvous.h): pure functions of text.
#include "bench/rendezvous.h"

#include "bench/bootstrap.h"
#include "bench/job_token.h"
#include "core/strings.h"

namespace railkit::bench {
namespace {

constexpr std::size_t kMacBytes = 32;  // SHA-256

}  // namespace

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
  out.reserve(hex.size() / 2);
  for (std::size_t i = 0; i < hex.size(); i += 2) {
    int hi = nibble(hex[i]), lo = nibble(hex[i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out.push_back(static_cast<char>(hi * 16 + lo));
  }
  return out;
}

Result<RendezvousHello> parseRendezvousHello(std::string_view line) {
  auto fields = split(line, ' ');
  if (fields.size() < 2 || fields[0] != "RAILKIT-RDV") {
    return makeError(ErrorCode::kInvalidInput, "not a railkit rendezvous message");
  }
  auto version = parseUint(fields[1]);
  if (!version) return makeError(ErrorCode::kInvalidInput, "malformed rendezvous message");
  if (*version != static_cast<std::uint64_t>(kRendezvousVersion)) {
    return makeError(ErrorCode::kInvalidInput,
                     "rendezvous protocol version " + std::string(fields[1]).substr(0, 12) +
                         " (this railkit speaks " + std::to_string(kRendezvousVersion) + ")");
  }
  if (fields.size() != 7) return makeError(ErrorCode::kInvalidInput, "malformed rendezvous message");
  auto rank = parseUint(fields[3]);
  auto size = parseUint(fields[4]);
  auto blob = hexDecode(fields[5] == "-" ? "" : fields[5]);
  auto mac = hexDecode(fields[6] == "-" ? "" : fields[6]);
  if (!rank || !size || !blob || !mac || *size == 0 || *size > static_cast<std::uint64_t>(kMaxWorldSize) ||
      *rank >= *size || fields[2].empty() || fields[2].size() > kMaxJobIdChars ||
      blob->size() > Bootstrap::kMaxBlobBytes || (!mac->empty() && mac->size() != kMacBytes)) {
    return makeError(ErrorCode::kInvalidInput, "malformed rendezvous message");
  }
  RendezvousHello hello;
  hello.version = static_cast<int>(*version);
  hello.job_id = std::string(fields[2]);
  hello.rank = static_cast<int>(*rank);
  hello.size = static_cast<int>(*size);
  hello.blob = std::move(*blob);
  hello.mac = std::move(*mac);
  return hello;
}

std::string formatRendezvousHello(const RendezvousHello& h) {
  std::string hex = hexEncode(h.blob);
  std::string mac = hexEncode(h.mac);
  return "RAILKIT-RDV " + std::to_string(h.version) + " " + h.job_id + " " + std::to_string(h.rank) + " " +
         std::to_string(h.size) + " " + (hex.empty() ? "-" : hex) + " " + (mac.empty() ? "-" : mac);
}

std::string formatRendezvousNonce(std::string_view nonce) {
  return "RAILKIT-RDV-NONCE " + std::to_string(kRendezvousVersion) + " " + hexEncode(nonce);
}

Result<std::string> parseRendezvousNonce(std::string_view line) {
  auto fields = split(line, ' ');
  auto nonce = fields.size() == 3 ? hexDecode(fields[2]) : std::nullopt;
  if (fields.size() != 3 || fields[0] != "RAILKIT-RDV-NONCE" ||
      fields[1] != std::to_string(kRendezvousVersion) || !nonce || nonce->size() != kRendezvousNonceBytes) {
    return makeError(ErrorCode::kInvalidInput, "not a railkit rendezvous (version " +
                                                   std::to_string(kRendezvousVersion) + ") greeting");
  }
  return *nonce;
}

// Newline-separated fixed fields: none of them can hold a newline (the job
// id comes from a line, the rest are digits and hex), so two different
// hellos never share an input.
std::string helloMacInput(std::string_view nonce, const RendezvousHello& h) {
  return "railkit-rdv\n" + std::to_string(h.version) + "\n" + hexEncode(nonce) + "\n" + h.job_id + "\n" +
         std::to_string(h.rank) + "\n" + std::to_string(h.size) + "\n" + hexEncode(h.blob);
}

std::string helloMac(std::string_view token, std::string_view nonce, const RendezvousHello& hello) {
  return hmacSha256(token, helloMacInput(nonce, hello));
}

std::optional<std::string> refuseHello(const RendezvousHello& hello, const HelloExpectation& expect) {
  if (hello.version != kRendezvousVersion) return "protocol version " + std::to_string(hello.version);
  if (hello.job_id != expect.job_id) return "job id '" + hello.job_id + "' is not this job's";
  if (hello.size != expect.size) {
    return "world size " + std::to_string(hello.size) + " (this job has " + std::to_string(expect.size) + ")";
  }
  if (hello.rank == 0) return "claims rank 0";
  if (expect.token.empty()) {
    if (!hello.mac.empty()) return "carries a job token mac, but rank 0 has no job token";
    return std::nullopt;
  }
  if (hello.mac.empty()) return "no job token (rank 0 requires one)";
  if (!sameBytes(hello.mac, helloMac(expect.token, expect.nonce, hello))) return "wrong job token";
  return std::nullopt;
}

}  // namespace railkit::bench
