#include "k8s/render/ssh_key.h"

#include <openssl/bio.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <memory>

namespace railkit::k8s::render {
namespace {

// RFC 4251 string: a 4-byte big-endian length, then the bytes.
void putString(std::string& out, const std::string& bytes) {
  std::uint32_t n = static_cast<std::uint32_t>(bytes.size());
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>((n >> shift) & 0xff));
  out += bytes;
}

std::string base64(const std::string& bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  int n =
      EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                      reinterpret_cast<const unsigned char*>(bytes.data()), static_cast<int>(bytes.size()));
  out.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
  return out;
}

Error keyError(const char* what) {
  return Error{ErrorCode::kIo, std::string("render: SSH key pair: ") + what};
}

}  // namespace

Result<SshKeyPair> newSshKeyPair(const std::string& comment) {
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(EVP_EC_gen("P-256"), EVP_PKEY_free);
  if (!key) return tl::unexpected(keyError("EC key generation failed"));
  unsigned char point[133];
  std::size_t point_len = 0;
  if (EVP_PKEY_get_octet_string_param(key.get(), OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY, point, sizeof point,
                                      &point_len) != 1 ||
      point_len != 65 || point[0] != 0x04)
    return tl::unexpected(keyError("no uncompressed public point"));
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new(BIO_s_mem()), BIO_free);
  if (!bio ||
      PEM_write_bio_PrivateKey_traditional(bio.get(), key.get(), nullptr, nullptr, 0, nullptr, nullptr) != 1)
    return tl::unexpected(keyError("PEM encoding failed"));
  char* data = nullptr;
  long size = BIO_get_mem_data(bio.get(), &data);
  if (size <= 0 || data == nullptr) return tl::unexpected(keyError("PEM encoding is empty"));
  SshKeyPair pair;
  pair.private_pem.assign(data, static_cast<std::size_t>(size));
  std::string blob;
  putString(blob, "ecdsa-sha2-nistp256");
  putString(blob, "nistp256");
  putString(blob, std::string(reinterpret_cast<const char*>(point), point_len));
  pair.authorized_line =
      "ecdsa-sha2-nistp256 " + base64(blob) + (comment.empty() ? "" : " " + comment) + "\n";
  return pair;
}

}  // namespace railkit::k8s::render
