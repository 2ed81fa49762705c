// railkit_node_root DIR [--roce] [--down DEV] [--fw DEV=VER] [--mtu NETDEV=N]
//                       [--gpus N] [--nics N] [--netdev OLD=NEW] [--env K=V]...
// Writes one node's tree (a healthy DGX H100, IB or --roce) with the given
// breakages, so a multi-node test (netns validate runs) can give each node
// its own --root. --nics N keeps the first N NICs (a pod's two rails) and
// --netdev renames a NIC's netdev, so that with `validate --live-net` its
// port's addresses are those of the netns node's own interface (net1).
// A test tool: flags are applied in order, anything unknown is a usage
// error (exit 2) rather than a silently healthy node.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "support/node_builder.h"

using railkit::testing::NodeBuilder;

namespace {

int usage(const std::string& why) {
  std::fprintf(stderr,
               "railkit_node_root: %s\nusage: railkit_node_root DIR [--roce] [--down DEV] [--fw DEV=VER] "
               "[--mtu NETDEV=N] [--gpus N] [--nics N] [--netdev OLD=NEW] [--env K=V]...\n",
               why.c_str());
  return 2;
}

bool splitPair(const std::string& text, std::string& key, std::string& value) {
  auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0) return false;
  key = text.substr(0, eq);
  value = text.substr(eq + 1);
  return true;
}

bool hasNic(const NodeBuilder& node, const std::string& name) {
  for (const auto& n : node.spec().nics)
    if (n.name == name) return true;
  return false;
}

bool hasNetdev(const NodeBuilder& node, const std::string& name) {
  for (const auto& n : node.spec().netdevs)
    if (n.name == name) return true;
  return false;
}

// Keeps the first n NICs, their netdevs and as many uverbs devices.
bool keepNics(NodeBuilder& node, const std::string& value) {
  auto& spec = node.spec();
  if (value.empty() || value.find_first_not_of("0123456789") != std::string::npos) return false;
  size_t n = std::strtoul(value.c_str(), nullptr, 10);
  if (n > spec.nics.size()) return false;
  std::vector<std::string> gone;
  for (size_t i = n; i < spec.nics.size(); ++i) gone.push_back(spec.nics[i].pci.address);
  spec.nics.resize(n);
  std::erase_if(spec.netdevs,
                [&](const auto& d) { return std::find(gone.begin(), gone.end(), d.pci) != gone.end(); });
  spec.uverbs = static_cast<int>(n);
  return true;
}

// The netdev `from` becomes `to`, in sysfs and in the GIDs that name it.
bool renameNetdev(NodeBuilder& node, const std::string& from, const std::string& to) {
  if (!hasNetdev(node, from) || hasNetdev(node, to) || to.empty()) return false;
  for (auto& d : node.spec().netdevs)
    if (d.name == from) d.name = to;
  for (auto& nic : node.spec().nics)
    for (auto& port : nic.ports)
      for (auto& gid : port.gids)
        if (gid.netdev == from) gid.netdev = to;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0].rfind("--", 0) == 0) return usage("DIR is required first");
  std::string dir = args[0];
  bool roce = false;
  for (size_t i = 1; i < args.size(); ++i) roce = roce || args[i] == "--roce";
  auto node = roce ? NodeBuilder::healthyRoce() : NodeBuilder::healthyDgxH100();
  // The builder aborts on an unknown name; checked here so a typo is a usage error.
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& flag = args[i];
    if (flag == "--roce") continue;
    if (i + 1 >= args.size()) return usage(flag + " needs a value");
    const std::string& value = args[++i];
    std::string key, rest;
    if (flag == "--down") {
      if (!hasNic(node, value)) return usage("no device " + value);
      node.setPortState(value, 1, "1: DOWN", "3: Disabled");
    } else if (flag == "--fw") {
      if (!splitPair(value, key, rest) || !hasNic(node, key))
        return usage("--fw wants DEV=VERSION of a device");
      node.nic(key).fw_ver = rest;
    } else if (flag == "--mtu") {
      if (!splitPair(value, key, rest) || !hasNetdev(node, key) || std::atoi(rest.c_str()) <= 0)
        return usage("--mtu wants NETDEV=N of a netdev");
      node.setNetdevMtu(key, std::atoi(rest.c_str()));
    } else if (flag == "--gpus") {
      int n = std::atoi(value.c_str());
      if (value.empty() || n < 0 || static_cast<size_t>(n) > node.spec().gpus.size() ||
          value.find_first_not_of("0123456789") != std::string::npos)
        return usage("--gpus wants 0.." + std::to_string(node.spec().gpus.size()));
      node.spec().gpus.resize(static_cast<size_t>(n));
    } else if (flag == "--nics") {
      if (!keepNics(node, value)) return usage("--nics wants 0.." + std::to_string(node.spec().nics.size()));
    } else if (flag == "--netdev") {
      if (!splitPair(value, key, rest) || !renameNetdev(node, key, rest))
        return usage("--netdev wants OLD=NEW, OLD a netdev and NEW a name not taken");
    } else if (flag == "--env") {
      if (!splitPair(value, key, rest)) return usage("--env wants KEY=VALUE");
      node.setEnv(key, rest);
    } else {
      return usage("unknown flag " + flag);
    }
  }
  node.write(dir);
  return 0;
}
