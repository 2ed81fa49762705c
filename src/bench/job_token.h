#pragma once
// The shared secret of a job (--job-token, --job-token-file,
// RAILKIT_JOB_TOKEN) and the few cryptographic primitives the rendezvous
// needs, all from OpenSSL: HMAC-SHA256, a constant-time comparison and
// random bytes from the system generator.

#include <cstddef>
#include <string>
#include <string_view>

#include "core/result.h"

namespace railkit::bench {

inline constexpr std::size_t kJobTokenMinChars = 16;
inline constexpr std::size_t kJobTokenMaxChars = 1024;

// `n` bytes from the operating system's generator; kIo when it fails.
Result<std::string> randomBytes(std::size_t n);
// HMAC-SHA256 of `message` under `key`: 32 raw bytes.
std::string hmacSha256(std::string_view key, std::string_view message);
// Equal contents, compared in time independent of where they differ.
bool sameBytes(std::string_view a, std::string_view b);
// A fresh token: 32 random bytes as 64 hex digits.
Result<std::string> newJobToken();
// A token is 16..1024 printable, non-space characters (a short one is
// guessable; spaces and control characters break env files and YAML).
// `source` names where it came from, for the message.
Status checkJobToken(std::string_view token, std::string_view source);

}  // namespace railkit::bench
