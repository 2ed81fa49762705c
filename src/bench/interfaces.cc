#include "bench/interfaces.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/name_list.h"

namespace railkit::bench {

std::vector<NetInterface> listInterfaces() {
  std::vector<NetInterface> out;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return out;
  for (ifaddrs* i = list; i != nullptr; i = i->ifa_next) {
    if (i->ifa_addr == nullptr || i->ifa_addr->sa_family != AF_INET || !(i->ifa_flags & IFF_UP)) continue;
    char buf[INET_ADDRSTRLEN] = {};
    inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(i->ifa_addr)->sin_addr, buf, sizeof buf);
    out.push_back(NetInterface{i->ifa_name, buf});
  }
  freeifaddrs(list);
  return out;
}

Result<NetInterface> selectInterface(const std::vector<NetInterface>& all, const std::string& spec, const char* role) {
  auto parsed = parseNameList(spec);
  std::string names;
  for (const auto& i : all) {
    if (nameListSelects(parsed, i.name)) return i;
    names += (names.empty() ? "" : ", ") + i.name;
  }
  return makeError(ErrorCode::kUsage, std::string(role) + " interface spec '" + spec +
                                          "' matches no IPv4 interface that is up (have: " + names + ")");
}

Result<NetInterface> interfaceRouting(const std::vector<NetInterface>& all, const std::string& host) {
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_DGRAM;
  addrinfo* res = nullptr;
  if (getaddrinfo(host.c_str(), "9", &hints, &res) != 0 || res == nullptr) {
    return makeError(ErrorCode::kNotFound, "cannot resolve MASTER_ADDR '" + host + "'");
  }
  int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  int rc = connect(fd, res->ai_addr, res->ai_addrlen);
  freeaddrinfo(res);
  sockaddr_in local{};
  socklen_t len = sizeof local;
  if (rc != 0 || getsockname(fd, reinterpret_cast<sockaddr*>(&local), &len) != 0) {
    close(fd);
    return makeError(ErrorCode::kNotFound, "no route to MASTER_ADDR '" + host + "'");
  }
  close(fd);
  char buf[INET_ADDRSTRLEN] = {};
  inet_ntop(AF_INET, &local.sin_addr, buf, sizeof buf);
  for (const auto& i : all) {
    if (i.address == buf) return i;
  }
  return makeError(ErrorCode::kNotFound, std::string("the route to ") + host + " uses " + buf +
                                             ", which no listed interface carries");
}

}  // namespace railkit::bench
