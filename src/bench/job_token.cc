#include "bench/job_token.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include "bench/rendezvous.h"

namespace railkit::bench {

Result<std::string> randomBytes(std::size_t n) {
  std::string out(n, '\0');
  if (n > 0 && RAND_bytes(reinterpret_cast<unsigned char*>(out.data()), static_cast<int>(n)) != 1) {
    return makeError(ErrorCode::kIo, "the system random generator failed (OpenSSL RAND_bytes)");
  }
  return out;
}

std::string hmacSha256(std::string_view key, std::string_view message) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  // A 1-byte stand-in key keeps OpenSSL from seeing a null pointer for an
  // empty key; callers never pass one (checkJobToken refuses it).
  static const unsigned char kEmpty[1] = {0};
  const void* k = key.empty() ? static_cast<const void*>(kEmpty) : static_cast<const void*>(key.data());
  HMAC(EVP_sha256(), k, static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(message.data()),
       message.size(), mac, &len);
  return std::string(reinterpret_cast<const char*>(mac), len);
}

bool sameBytes(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  return a.empty() || CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

Result<std::string> newJobToken() {
  auto bytes = randomBytes(32);
  if (!bytes) return tl::unexpected(bytes.error());
  return hexEncode(*bytes);
}

Status checkJobToken(std::string_view token, std::string_view source) {
  std::string where(source);
  if (token.size() < kJobTokenMinChars) {
    return makeError(ErrorCode::kUsage, where + ": job token too short (" + std::to_string(token.size()) +
                                            " characters; use at least " + std::to_string(kJobTokenMinChars) +
                                            ", e.g. openssl rand -hex 32)");
  }
  if (token.size() > kJobTokenMaxChars) {
    return makeError(ErrorCode::kUsage,
                     where + ": job token longer than " + std::to_string(kJobTokenMaxChars) + " characters");
  }
  for (unsigned char c : token) {
    if (c <= ' ' || c >= 0x7f) {
      return makeError(ErrorCode::kUsage, where + ": job token holds a space or a non-printable character");
    }
  }
  return okStatus();
}

}  // namespace railkit::bench
