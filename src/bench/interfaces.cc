#include "bench/interfaces.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>

#include "core/name_list.h"
#include "core/strings.h"
#include "model/collect.h"
#include "sys/paths.h"

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

Result<NetInterface> selectInterface(const std::vector<NetInterface>& all, const std::string& spec,
                                     const char* role) {
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

namespace railkit::bench {

std::vector<std::string> selectedNames(const std::vector<NetInterface>& all, const std::string& spec) {
  auto parsed = parseNameList(spec);
  std::vector<std::string> out;
  for (const auto& i : all) {
    if (nameListSelects(parsed, i.name) && std::find(out.begin(), out.end(), i.name) == out.end())
      out.push_back(i.name);
  }
  return out;
}

std::vector<std::string> rdmaPortsFor(const std::vector<model::RdmaDevice>& devices,
                                      const std::string& netdev) {
  std::vector<std::string> out;
  if (netdev.empty()) return out;
  for (const auto& dev : devices) {
    for (const auto& port : dev.ports) {
      if (port.netdev == netdev) out.push_back(dev.name + ":" + std::to_string(port.port));
    }
  }
  return out;
}

std::vector<std::string> rdmaPortsBehind(const FileRoot& root, const std::string& netdev) {
  if (netdev.empty() || netdev == "lo") return {};
  auto inventory = model::collectInventory(root, {});
  if (!inventory) return {};
  return rdmaPortsFor(inventory->rdma_devices, netdev);
}

std::vector<DataNic> describeDataNics(const FileRoot& root, const std::vector<std::string>& interfaces) {
  std::vector<DataNic> out;
  auto inventory = model::collectInventory(root, {});
  for (const auto& name : interfaces) {
    DataNic nic{name, "", 0, std::nullopt, ""};
    if (inventory) {
      for (const auto& dev : inventory->rdma_devices) {
        for (const auto& port : dev.ports) {
          if (port.netdev != name || !nic.rdma_device.empty()) continue;
          nic.rdma_device = dev.name;
          nic.port = port.port;
          if (port.rate_gbps) {
            nic.rate_gbps = port.rate_gbps;
            nic.source = fmt::format("{}/{}/ports/{}/rate \"{}\"", sys::paths::kClassInfiniband, dev.name,
                                     port.port, port.rate_text);
          }
        }
      }
    }
    if (!nic.rate_gbps) {
      std::string path = joinPath(joinPath(sys::paths::kClassNet, name), "speed");
      auto line = root.readLine(path);
      auto mbps = line ? parseInt(trim(*line)) : std::nullopt;
      if (mbps && *mbps > 0) {
        nic.rate_gbps = static_cast<double>(*mbps) / 1000.0;
        nic.source = fmt::format("{} \"{}\" Mb/s", path, *mbps);
      } else {
        nic.source = fmt::format("no RDMA port maps to {} and {} is {}", name, path,
                                 line ? "\"" + *line + "\" (unknown)" : std::string("unreadable"));
      }
    }
    out.push_back(nic);
  }
  return out;
}

Result<double> nodeLineRate(const std::vector<DataNic>& nics) {
  double sum = 0;
  std::string missing;
  for (const auto& n : nics) {
    if (n.rate_gbps) {
      sum += *n.rate_gbps;
    } else {
      missing += (missing.empty() ? "" : "; ") + n.source;
    }
  }
  if (nics.empty()) return makeError(ErrorCode::kNotFound, "no data interface to take a line rate from");
  if (!missing.empty())
    return makeError(ErrorCode::kNotFound, "no link rate for a data interface: " + missing);
  return sum;
}

}  // namespace railkit::bench
