#include "sys/live.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <sys/statvfs.h>

#include <algorithm>

namespace railkit::sys {

namespace {
int prefixLength(const sockaddr* mask) {
  if (!mask) return 0;
  const auto* bytes =
      mask->sa_family == AF_INET
          ? reinterpret_cast<const uint8_t*>(&reinterpret_cast<const sockaddr_in*>(mask)->sin_addr)
          : reinterpret_cast<const uint8_t*>(&reinterpret_cast<const sockaddr_in6*>(mask)->sin6_addr);
  int n = mask->sa_family == AF_INET ? 4 : 16, bits = 0;
  for (int i = 0; i < n; ++i) bits += __builtin_popcount(bytes[i]);
  return bits;
}
}  // namespace

std::map<std::string, std::vector<std::string>> liveInterfaceAddresses() {
  std::map<std::string, std::vector<std::string>> out;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return out;
  for (ifaddrs* it = list; it; it = it->ifa_next) {
    if (!it->ifa_addr || !it->ifa_name) continue;
    int family = it->ifa_addr->sa_family;
    if (family != AF_INET && family != AF_INET6) continue;
    char buf[INET6_ADDRSTRLEN] = {};
    const void* src =
        family == AF_INET
            ? static_cast<const void*>(&reinterpret_cast<sockaddr_in*>(it->ifa_addr)->sin_addr)
            : static_cast<const void*>(&reinterpret_cast<sockaddr_in6*>(it->ifa_addr)->sin6_addr);
    if (!inet_ntop(family, src, buf, sizeof buf)) continue;
    out[it->ifa_name].push_back(std::string(buf) + "/" + std::to_string(prefixLength(it->ifa_netmask)));
  }
  freeifaddrs(list);
  for (auto& [name, addrs] : out) std::sort(addrs.begin(), addrs.end());
  return out;
}

std::optional<uint64_t> liveFsBytes(const std::string& path) {
  struct statvfs st {};
  if (statvfs(path.c_str(), &st) != 0) return std::nullopt;
  return static_cast<uint64_t>(st.f_blocks) * st.f_frsize;
}

}  // namespace railkit::sys
