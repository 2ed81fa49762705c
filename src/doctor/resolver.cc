// Resolvers for hostfile checks (see resolver.h).
#include "doctor/resolver.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>

#include <fstream>

#include "core/strings.h"

namespace railkit::doctor {
namespace {

// A hosts file larger than this is not a hosts file.
constexpr size_t kMaxHostsBytes = 16u << 20;

bool isAddress(const std::string& token) {
  unsigned char buf[16];
  std::string addr = token.substr(0, token.find('%'));  // fe80::1%eth0
  return inet_pton(AF_INET, addr.c_str(), buf) == 1 || inet_pton(AF_INET6, addr.c_str(), buf) == 1;
}

std::string normalise(std::string_view name) {
  std::string out = toLower(name);
  if (!out.empty() && out.back() == '.') out.pop_back();
  return out;
}

}  // namespace

HostsTable parseHostsText(std::string_view text) {
  HostsTable table;
  for (auto line : split(text, '\n')) {
    line = line.substr(0, line.find('#'));
    auto fields = splitWhitespace(line);
    if (fields.size() < 2) continue;
    std::string addr(fields[0]);
    if (!isAddress(addr)) continue;
    for (size_t i = 1; i < fields.size(); ++i) {
      auto& addrs = table[normalise(fields[i])];
      if (std::find(addrs.begin(), addrs.end(), addr) == addrs.end()) addrs.push_back(addr);
    }
  }
  return table;
}

Result<std::unique_ptr<HostsFileResolver>> HostsFileResolver::open(const std::filesystem::path& path) {
  std::unique_ptr<HostsFileResolver> resolver(new HostsFileResolver(path));
  auto st = resolver->reloadIfChanged();
  if (!st) return tl::unexpected(st.error());
  return resolver;
}

Status HostsFileResolver::reloadIfChanged() {
  std::error_code ec;
  auto mtime = std::filesystem::last_write_time(path_, ec);
  if (ec) return makeError(ErrorCode::kNotFound, "hosts file " + path_.string() + " does not exist");
  auto size = std::filesystem::file_size(path_, ec);
  if (ec)
    return makeError(ErrorCode::kInvalidInput, "hosts file " + path_.string() + " is not a regular file");
  if (mtime_ && *mtime_ == mtime && size_ == size) return okStatus();
  if (size > kMaxHostsBytes)
    return makeError(ErrorCode::kInvalidInput, "hosts file " + path_.string() + " is larger than 16 MiB");
  std::ifstream in(path_, std::ios::binary);
  if (!in) return makeError(ErrorCode::kIo, "cannot open hosts file " + path_.string());
  std::string text(size, '\0');
  in.read(text.data(), static_cast<std::streamsize>(size));
  text.resize(static_cast<size_t>(in.gcount()));
  table_ = parseHostsText(text);
  mtime_ = mtime;
  size_ = size;
  return okStatus();
}

Result<std::vector<std::string>> HostsFileResolver::resolve(const std::string& name) {
  // An address resolves to itself, as getaddrinfo does, without any lookup.
  if (isAddress(name)) return std::vector<std::string>{name};
  if (auto st = reloadIfChanged(); !st)
    return makeError(ErrorCode::kUnavailable, st.error().message);  // the file may come back
  auto it = table_.find(normalise(name));
  if (it == table_.end()) return makeError(ErrorCode::kNotFound, "not in hosts file " + path_.string());
  return it->second;
}

Result<std::vector<std::string>> SystemResolver::resolve(const std::string& name) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* list = nullptr;
  int rc = getaddrinfo(name.c_str(), nullptr, &hints, &list);
  if (rc != 0) {
    const ErrorCode code = (rc == EAI_NONAME
#ifdef EAI_NODATA
                            || rc == EAI_NODATA
#endif
                            )
                               ? ErrorCode::kNotFound
                               : ErrorCode::kUnavailable;
    return makeError(code, gai_strerror(rc));
  }
  std::vector<std::string> out;
  for (addrinfo* ai = list; ai; ai = ai->ai_next) {
    char host[NI_MAXHOST];
    if (getnameinfo(ai->ai_addr, ai->ai_addrlen, host, sizeof host, nullptr, 0, NI_NUMERICHOST) != 0)
      continue;
    if (std::find(out.begin(), out.end(), host) == out.end()) out.emplace_back(host);
  }
  freeaddrinfo(list);
  if (out.empty()) return makeError(ErrorCode::kNotFound, "no address");
  return out;
}

Result<std::unique_ptr<Resolver>> makeResolver(const std::string& hosts_file) {
  if (hosts_file.empty()) return std::unique_ptr<Resolver>(new SystemResolver());
  auto resolver = HostsFileResolver::open(hosts_file);
  if (!resolver) return tl::unexpected(resolver.error());
  return std::unique_ptr<Resolver>(std::move(*resolver));
}

}  // namespace railkit::doctor
