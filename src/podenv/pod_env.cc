#include "podenv/pod_env.h"

#include <algorithm>
#include <cctype>

#include "podenv/port_map.h"

namespace railkit::podenv {

namespace {

// Natural order, so net2 comes before net10 and ib8 before ib10.
bool naturalLess(const std::string& a, const std::string& b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (std::isdigit(static_cast<unsigned char>(a[i])) && std::isdigit(static_cast<unsigned char>(b[j]))) {
      size_t i2 = i, j2 = j;
      while (i2 < a.size() && std::isdigit(static_cast<unsigned char>(a[i2]))) ++i2;
      while (j2 < b.size() && std::isdigit(static_cast<unsigned char>(b[j2]))) ++j2;
      std::string x = a.substr(i, i2 - i), y = b.substr(j, j2 - j);
      x.erase(0, std::min(x.find_first_not_of('0'), x.size() - 1));
      y.erase(0, std::min(y.find_first_not_of('0'), y.size() - 1));
      if (x.size() != y.size()) return x.size() < y.size();
      if (x != y) return x < y;
      i = i2;
      j = j2;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i;
      ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

std::string describe(const SelectedPort& p) {
  return p.netdev.empty() ? p.name() : p.name() + " (" + p.netdev + ")";
}

class Builder {
 public:
  Builder(const model::Inventory& inventory, const PodEnvOptions& options)
      : inv_(inventory), opts_(options) {}

  PodEnv build() {
    chooseControl();
    if (!opts_.data_ifs.empty()) {
      for (const auto& name : opts_.data_ifs) addInterface(name, /*explicit_name=*/true);
    } else if (opts_.hcas.empty()) {
      addDefaultInterfaces();
    }
    for (const auto& request : opts_.hcas) addHca(request);
    if (env_.ports.empty() && opts_.data_ifs.empty() && opts_.hcas.empty())
      env_.missing.push_back({"rdma", "",
                              skipped_.empty() ? "no interface of this pod has an RDMA device behind it"
                                               : "no RDMA port of this pod is ACTIVE / LinkUp (" +
                                                     std::to_string(skipped_.size()) + " skipped)"});
    writeExports();
    return std::move(env_);
  }

 private:
  void chooseControl() {
    if (!opts_.ctrl_if.empty()) {
      env_.control_interface = opts_.ctrl_if;
      env_.control_source = "--ctrl-if";
      if (!findInterface(inv_, opts_.ctrl_if))
        env_.missing.push_back(
            {"ctrl-if", opts_.ctrl_if, "not in this pod (no /sys/class/net/" + opts_.ctrl_if + ")"});
      return;
    }
    const std::string& route = inv_.default_route_interface;
    if (!route.empty()) {
      if (auto problem = netdevNameProblem(route)) {
        env_.notes.push_back("the default route's interface '" + commentSafe(route) + "' is unusable (" +
                             *problem + "); using eth0");
      } else {
        env_.control_interface = route;
        env_.control_source = "default route";
        return;
      }
    }
    env_.control_interface = "eth0";
    env_.control_source = "fallback";
    if (!findInterface(inv_, "eth0"))
      env_.notes.push_back("no IPv4 default route and no eth0 in this pod: give --ctrl-if");
  }

  void addDefaultInterfaces() {
    std::vector<const model::NetInterface*> candidates;
    for (const auto& n : inv_.interfaces)
      if (n.type != "loopback" && n.name != env_.control_interface) candidates.push_back(&n);
    std::sort(candidates.begin(), candidates.end(),
              [](const auto* a, const auto* b) { return naturalLess(a->name, b->name); });
    for (const auto* n : candidates) {
      if (auto problem = netdevNameProblem(n->name)) {
        env_.notes.push_back("skipped interface '" + commentSafe(n->name) + "': " + *problem);
        continue;
      }
      addInterface(n->name, /*explicit_name=*/false);
    }
  }

  void addInterface(const std::string& name, bool explicit_name) {
    auto found = findPortOfInterface(inv_, name);
    if (!found.device) {
      if (explicit_name) {
        env_.missing.push_back({"data-if", name, found.problem});
      } else if (!found.problem.empty() && found.problem.find("GID tables") != std::string::npos) {
        env_.notes.push_back("skipped " + name + ": " + found.problem);
      }
      return;
    }
    if (auto problem = rdmaNameProblem(found.device->name)) {
      std::string reason = "its RDMA device '" + commentSafe(found.device->name) + "' " + *problem;
      if (explicit_name)
        env_.missing.push_back({"data-if", name, reason});
      else
        env_.notes.push_back("skipped " + name + ": " + reason);
      return;
    }
    if (!model::portUsable(*found.port)) {
      skipUnusable(*found.device, *found.port, name, explicit_name ? "data-if" : "", name);
      return;
    }
    addPort(*found.device, *found.port, name, found.mapped_by);
  }

  // A port that is not ACTIVE and LinkUp is never exported: NCCL and UCX
  // skip it, and doctor reports a list naming it (nccl-ib-hca-invalid,
  // ucx-net-devices-invalid). Asked for by name (`missing_kind`), it is
  // missing; found by discovery, a note says it was skipped.
  void skipUnusable(const model::RdmaDevice& d, const model::RdmaPort& p, const std::string& netdev,
                    const std::string& missing_kind, const std::string& requested) {
    std::string port = d.name + ":" + std::to_string(p.port);
    std::string state = (p.state.empty() ? "?" : p.state) + " / " +
                        (p.phys_state.empty() ? "?" : p.phys_state) +
                        " (not ACTIVE / LinkUp): NCCL and UCX skip such ports";
    skipped_.push_back(port);
    if (!missing_kind.empty())
      env_.missing.push_back({missing_kind, requested, "port " + port + " is " + state});
    else
      env_.notes.push_back("skipped " + (netdev.empty() ? port : port + " (" + netdev + ")") + ", which is " +
                           state);
  }

  void addHca(const HcaRequest& request) {
    std::string spec = request.device;
    if (request.port) spec.append(":").append(std::to_string(*request.port));
    const model::RdmaDevice* device = nullptr;
    for (const auto& d : inv_.rdma_devices)
      if (d.name == request.device) device = &d;
    if (!device) {
      env_.missing.push_back(
          {"hca", spec, "no RDMA device of that name in this pod (/sys/class/infiniband)"});
      return;
    }
    bool any = false;
    int usable = 0;
    std::vector<const model::RdmaPort*> unusable;
    for (const auto& p : device->ports) {
      if (request.port && p.port != *request.port) continue;
      any = true;
      if (!model::portUsable(p)) {
        unusable.push_back(&p);
        continue;
      }
      ++usable;
      // The port's netdev, when the pod has it, names its GIDs and appears in the JSON.
      std::string netdev = findInterface(inv_, p.netdev) ? p.netdev : "";
      addPort(*device, p, netdev, "hca");
    }
    if (!any)
      env_.missing.push_back(
          {"hca", spec, request.port ? "the device has no such port" : "the device has no ports"});
    // The request is missing only when none of its ports is usable.
    for (const auto* p : unusable) skipUnusable(*device, *p, p->netdev, usable == 0 ? "hca" : "", spec);
  }

  void addPort(const model::RdmaDevice& d, const model::RdmaPort& p, const std::string& netdev,
               const std::string& mapped_by) {
    SelectedPort s;
    s.device = d.name;
    s.port = p.port;
    s.netdev = netdev;
    s.link_layer = p.link_layer;
    s.state = p.state;
    s.mapped_by = mapped_by;
    for (const auto& existing : env_.ports)
      if (existing.name() == s.name()) {
        env_.notes.push_back(describe(s) + " is already selected as " + describe(existing) + "; listed once");
        return;
      }
    if (s.link_layer == "Ethernet") {
      std::string ifname = netdev.empty() ? p.netdev : netdev;
      auto gid = ipv4RoceV2Gid(p, ifname, findInterface(inv_, ifname));
      s.gid_index = gid.index;
      if (!gid.note.empty()) env_.notes.push_back(describe(s) + ": " + gid.note);
    }
    env_.ports.push_back(std::move(s));
  }

  void writeExports() {
    env_.exports.emplace_back(kNcclSocketIfname, std::string("=").append(env_.control_interface));
    if (env_.ports.empty()) {
      env_.notes.push_back("no RDMA port selected: NCCL_IB_HCA and UCX_NET_DEVICES are not set");
      return;
    }
    std::string list;
    for (const auto& p : env_.ports) {
      if (!list.empty()) list += ',';
      list += p.name();
    }
    env_.exports.emplace_back(kNcclIbHca, std::string("=").append(list));
    writeGidIndex();
    env_.exports.emplace_back(kUcxNetDevices, list);
  }

  // One NCCL_IB_GID_INDEX for every selected RoCE port when they agree;
  // otherwise NCCL's own per-port choice, told what to choose.
  void writeGidIndex() {
    std::vector<const SelectedPort*> roce;
    bool infiniband = false;
    for (const auto& p : env_.ports) {
      if (p.link_layer == "Ethernet")
        roce.push_back(&p);
      else
        infiniband = true;
    }
    if (roce.empty()) return;
    bool same = !infiniband;
    for (const auto* p : roce) same = same && p->gid_index && *p->gid_index == *roce.front()->gid_index;
    if (same) {
      env_.exports.emplace_back(kNcclIbGidIndex, std::to_string(*roce.front()->gid_index));
      return;
    }
    std::string per_port;
    for (const auto* p : roce)
      per_port += (per_port.empty() ? "" : ", ") + p->name() + "=" +
                  (p->gid_index ? std::to_string(*p->gid_index) : std::string("none"));
    env_.notes.push_back(std::string(kNcclIbGidIndex) + " not set: " +
                         (infiniband ? "InfiniBand ports are selected too, and one index would apply to them"
                                     : "the selected RoCE ports differ in their IPv4 RoCE v2 GID index") +
                         " (" + per_port + "); NCCL (2.21 or newer) picks per port with " +
                         kNcclIbRoceVersionNum + "=2 " + kNcclIbAddrFamily + "=AF_INET");
    env_.exports.emplace_back(kNcclIbRoceVersionNum, "2");
    env_.exports.emplace_back(kNcclIbAddrFamily, "AF_INET");
  }

  const model::Inventory& inv_;
  const PodEnvOptions& opts_;
  PodEnv env_;
  std::vector<std::string> skipped_;  // ports left out as not ACTIVE / LinkUp
};

}  // namespace

PodEnv computePodEnv(const model::Inventory& inventory, const PodEnvOptions& options) {
  return Builder(inventory, options).build();
}

}  // namespace railkit::podenv
