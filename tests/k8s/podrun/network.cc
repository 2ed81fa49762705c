#include "network.h"

#include <nlohmann/json.hpp>
#include <set>

#include "core/ipv4.h"
#include "k8s/lint/rules/spiderpool.h"

namespace railkit::podrun {
namespace {

using k8s::YamlNode;

std::string trim(const std::string& text) {
  size_t begin = text.find_first_not_of(" \t\n");
  size_t end = text.find_last_not_of(" \t\n");
  return begin == std::string::npos ? "" : text.substr(begin, end - begin + 1);
}

// Multus' selection annotation: "a,ns/b@net7" or a JSON list of
// {"name", "namespace", "interface"}. Unnamed attachments are net1, net2, ...
// by position. Each entry: the network's name (namespace dropped) and the
// interface name.
Result<std::vector<std::pair<std::string, std::string>>> multusAttachments(const std::string& annotation,
                                                                           const std::string& where) {
  std::vector<std::pair<std::string, std::string>> out;
  std::string text = trim(annotation);
  if (text.empty()) return out;
  auto interface = [&](std::string name) {
    return name.empty() ? "net" + std::to_string(out.size() + 1) : name;
  };
  if (text.front() == '[') {
    auto list = nlohmann::json::parse(text, nullptr, false);
    if (list.is_discarded() || !list.is_array())
      return makeError(ErrorCode::kInvalidInput, where + ": k8s.v1.cni.cncf.io/networks is not a JSON list");
    for (const auto& item : list) {
      auto field = [&](const char* key) {
        return item.is_object() && item.contains(key) && item[key].is_string() ? item[key].get<std::string>()
                                                                               : std::string();
      };
      out.emplace_back(field("name"), interface(field("interface")));
    }
    return out;
  }
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string entry =
        trim(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (!entry.empty()) {
      size_t at = entry.find('@');
      std::string network = entry.substr(0, at);
      if (size_t slash = network.find('/'); slash != std::string::npos) network = network.substr(slash + 1);
      out.emplace_back(network, interface(at == std::string::npos ? "" : entry.substr(at + 1)));
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

// dra.net names the interface in the claim's opaque config
// (parameters.interface.name); without one the NIC keeps its host name,
// which the runner cannot know.
std::string draInterface(const std::string& template_name, const std::string& ns,
                         const k8s::Manifest& manifest, std::vector<std::string>& notes) {
  for (const k8s::Object& object : manifest.objects) {
    if ((object.kind != "ResourceClaimTemplate" && object.kind != "ResourceClaim") ||
        object.name != template_name || object.ns != ns)
      continue;
    const YamlNode* devices = object.kind == "ResourceClaimTemplate"
                                  ? object.root->at({"spec", "spec", "devices"})
                                  : object.root->at({"spec", "devices"});
    const YamlNode* config = devices ? devices->get("config") : nullptr;
    if (config != nullptr && config->isSeq())
      for (const YamlNode& item : config->items)
        if (const YamlNode* name = item.at({"opaque", "parameters", "interface", "name"});
            name != nullptr && item.at({"opaque", "driver"}) &&
            item.at({"opaque", "driver"})->text() == "dra.net")
          return name->text();
    notes.push_back(object.ref() + ": no dra.net interface name; the pod sees the NIC under its host name");
    return "dranet-" + template_name;
  }
  notes.push_back("resource claim source " + template_name + " is not in the manifest");
  return "";
}

// hostNetwork: the node's own NICs; the shared device plugin's selectors
// name them (config is a JSON string in the NicClusterPolicy).
std::vector<std::string> hostNics(const k8s::Manifest& manifest) {
  std::vector<std::string> names;
  for (const k8s::Object& object : manifest.objects) {
    if (object.kind != "NicClusterPolicy") continue;
    const YamlNode* config = object.root->at({"spec", "rdmaSharedDevicePlugin", "config"});
    if (config == nullptr) continue;
    auto parsed = nlohmann::json::parse(config->text(), nullptr, false);
    if (parsed.is_discarded() || !parsed.contains("configList")) continue;
    for (const auto& entry : parsed["configList"])
      if (entry.contains("selectors") && entry["selectors"].contains("ifNames"))
        for (const auto& name : entry["selectors"]["ifNames"])
          if (name.is_string()) names.push_back(name.get<std::string>());
  }
  return names;
}

// GKE multi-networking: networking.gke.io/interfaces lists every interface
// with its network; all but the default interface (eth0 on the pod network,
// or the one networking.gke.io/default-interface names) are extra NICs.
Result<std::vector<std::string>> gkeInterfaces(const PlannedPod& pod) {
  std::vector<std::string> names;
  auto found = pod.spec.annotations.find("networking.gke.io/interfaces");
  if (found == pod.spec.annotations.end()) return names;
  std::string default_if = "eth0";
  if (auto d = pod.spec.annotations.find("networking.gke.io/default-interface");
      d != pod.spec.annotations.end())
    default_if = trim(d->second);
  auto list = nlohmann::json::parse(found->second, nullptr, false);
  if (list.is_discarded() || !list.is_array())
    return makeError(ErrorCode::kInvalidInput,
                     "pod " + pod.name + ": networking.gke.io/interfaces is not a JSON list");
  for (const auto& item : list) {
    if (!item.is_object() || !item.contains("interfaceName") || !item["interfaceName"].is_string())
      return makeError(ErrorCode::kInvalidInput,
                       "pod " + pod.name + ": networking.gke.io/interfaces: an entry without interfaceName");
    std::string name = item["interfaceName"].get<std::string>();
    if (name != default_if) names.push_back(name);
  }
  return names;
}

}  // namespace

Result<std::vector<std::string>> dataInterfaces(const PlannedPod& pod, const k8s::Manifest& manifest,
                                                std::vector<std::string>& notes) {
  if (pod.spec.host_network) return hostNics(manifest);
  std::vector<std::string> names;
  auto found = pod.spec.annotations.find("k8s.v1.cni.cncf.io/networks");
  if (found != pod.spec.annotations.end()) {
    auto multus = multusAttachments(found->second, "pod " + pod.name);
    if (!multus) return tl::unexpected(multus.error());
    for (const auto& [network, name] : *multus) names.push_back(name);
  }
  auto gke = gkeInterfaces(pod);
  if (!gke) return tl::unexpected(gke.error());
  names.insert(names.end(), gke->begin(), gke->end());
  for (const auto& [claim, source] : pod.spec.claims) {
    std::string name = draInterface(source, pod.ns, manifest, notes);
    if (!name.empty()) names.push_back(name);
  }
  return names;
}

Result<std::vector<std::string>> multusNetworks(const PlannedPod& pod) {
  std::vector<std::string> networks;
  auto found = pod.spec.annotations.find("k8s.v1.cni.cncf.io/networks");
  if (found == pod.spec.annotations.end()) return networks;
  auto multus = multusAttachments(found->second, "pod " + pod.name);
  if (!multus) return tl::unexpected(multus.error());
  for (const auto& [network, name] : *multus) networks.push_back(network);
  return networks;
}

namespace {

// The pool's node affinity takes node "node<N>": none at all, or
// matchLabels kubernetes.io/hostname naming it.
bool takesNode(const YamlNode& pool, int node) {
  const YamlNode* affinity = pool.at({"spec", "nodeAffinity"});
  if (affinity == nullptr) return true;
  const YamlNode* host = affinity->at({"matchLabels", "kubernetes.io/hostname"});
  return host != nullptr && host->text() == "node" + std::to_string(node);
}

const k8s::Object* findObject(const k8s::Manifest& manifest, const std::string& kind,
                              const std::string& name) {
  for (const k8s::Object& object : manifest.objects)
    if (object.kind == kind && object.name == name) return &object;
  return nullptr;
}

// The ippools.ipv4 references of a SpiderMultusConfig, from its cniType's block.
std::vector<std::string> poolReferences(const k8s::Object& config) {
  std::string type = config.root->at({"spec", "cniType"}) ? config.root->at({"spec", "cniType"})->text() : "";
  const YamlNode* list = config.root->at({"spec", type == "ib-sriov" ? "ibsriov" : type, "ippools", "ipv4"});
  std::vector<std::string> out;
  if (list != nullptr && list->isSeq())
    for (const YamlNode& item : list->items) out.push_back(item.text());
  return out;
}

}  // namespace

Result<std::optional<PoolLease>> SpiderpoolIpam::lease(const std::string& network, int node,
                                                       const std::string& where) {
  const k8s::Object* config = findObject(manifest_, "SpiderMultusConfig", network);
  if (config == nullptr) return std::optional<PoolLease>();
  for (const std::string& reference : poolReferences(*config))
    for (const k8s::Object& pool : manifest_.objects) {
      if (pool.kind != "SpiderIPPool" || !k8s::rules::poolNameMatches(reference, pool.name) ||
          !takesNode(*pool.root, node))
        continue;
      auto subnet =
          parseIpv4Net(pool.root->at({"spec", "subnet"}) ? pool.root->at({"spec", "subnet"})->text() : "");
      const YamlNode* ips = pool.root->at({"spec", "ips"});
      if (!subnet || ips == nullptr || !ips->isSeq() || ips->items.empty())
        return makeError(ErrorCode::kInvalidInput,
                         where + ": " + pool.ref() + " has no subnet or ips to give");
      uint32_t& used = used_[pool.name];
      // The pool's addresses in order, across its ips entries.
      uint32_t skip = used;
      for (const YamlNode& entry : ips->items) {
        auto range = k8s::rules::parseIpRange(entry.text());
        if (!range)
          return makeError(ErrorCode::kInvalidInput,
                           where + ": " + pool.ref() + ": bad ips entry '" + entry.text() + "'");
        uint64_t count = uint64_t{range->second} - range->first + 1;
        if (skip >= count) {
          skip -= static_cast<uint32_t>(count);
          continue;
        }
        ++used;
        PoolLease lease;
        lease.address = ipv4Text(range->first + skip) + "/" + std::to_string(subnet->prefix);
        const YamlNode* gateway = pool.root->at({"spec", "gateway"});
        if (gateway != nullptr && !gateway->text().empty())
          lease.gateway = gateway->text() + "/" + std::to_string(subnet->prefix);
        if (const YamlNode* routes = pool.root->at({"spec", "routes"}); routes != nullptr && routes->isSeq())
          for (const YamlNode& route : routes->items)
            if (route.get("dst") && route.get("gw"))
              lease.routes.emplace_back(route.get("dst")->text(), route.get("gw")->text());
        return std::optional<PoolLease>(std::move(lease));
      }
      return makeError(ErrorCode::kInvalidInput, where + ": " + pool.ref() + " has no address left");
    }
  return makeError(ErrorCode::kInvalidInput, where + ": no SpiderIPPool of " + config->ref() +
                                                 " takes node node" + std::to_string(node) +
                                                 " (its node affinity, kubernetes.io/hostname)");
}

std::string hostsFile(const ResolvedPod& self, const std::vector<ResolvedPod>& pods,
                      const std::string& domain) {
  std::string out =
      "# Kubernetes-managed hosts file (written by the pod runner in place of cluster DNS).\n"
      "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n";
  std::vector<std::string> searches = {self.pod.ns + ".svc." + domain, "svc." + domain, domain};
  for (const std::string& search : self.pod.spec.dns_searches) searches.push_back(search);
  auto line = [&](const ResolvedPod& peer, std::vector<std::string> names) {
    std::set<std::string> seen;
    std::string fqdn = peer.pod.hostname + "." + peer.pod.subdomain + "." + peer.pod.ns + ".svc." + domain;
    if (peer.pod.published) {
      names.insert(names.begin(), fqdn);
      for (const std::string& search : searches)
        if (fqdn.size() > search.size() + 1 &&
            fqdn.compare(fqdn.size() - search.size() - 1, std::string::npos, "." + search) == 0)
          names.push_back(fqdn.substr(0, fqdn.size() - search.size() - 1));
    }
    std::string text = peer.ip;
    for (const std::string& name : names)
      if (seen.insert(name).second) text += "\t" + name;
    return text + "\n";
  };
  // The kubelet's line for the pod itself: FQDN (with a subdomain) and hostname.
  std::vector<std::string> own;
  if (!self.pod.subdomain.empty())
    own.push_back(self.pod.hostname + "." + self.pod.subdomain + "." + self.pod.ns + ".svc." + domain);
  own.push_back(self.pod.hostname);
  out += line(self, own);
  for (const ResolvedPod& peer : pods)
    if (peer.pod.name != self.pod.name && peer.pod.published) out += line(peer, {});
  return out;
}

}  // namespace railkit::podrun
