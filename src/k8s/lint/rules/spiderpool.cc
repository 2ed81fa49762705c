#include "k8s/lint/rules/spiderpool.h"

namespace railkit::k8s::rules {
namespace {

constexpr std::string_view kGroup = "spiderpool.spidernet.io/";

bool isSpider(const Object& object, const char* kind) {
  return object.kind == kind && object.api_version.rfind(kGroup, 0) == 0;
}

// The spec block named by cniType (ib-sriov's is "ibsriov").
std::string blockOf(const std::string& cni_type) {
  return cni_type == "ib-sriov" ? "ibsriov" : cni_type;
}

}  // namespace

std::optional<std::pair<uint32_t, uint32_t>> parseIpRange(std::string_view text) {
  size_t dash = text.find('-');
  auto first = parseIpv4Address(text.substr(0, dash));
  if (!first) return std::nullopt;
  if (dash == std::string_view::npos) return std::make_pair(*first, *first);
  auto last = parseIpv4Address(text.substr(dash + 1));
  if (!last || *last < *first) return std::nullopt;
  return std::make_pair(*first, *last);
}

std::vector<SpiderPool> spiderPools(const LintInput& input) {
  std::vector<SpiderPool> pools;
  for (const auto& manifest : input.manifests)
    for (const Object& object : manifest->objects) {
      if (!isSpider(object, "SpiderIPPool")) continue;
      SpiderPool pool;
      pool.object = &object;
      pool.subnet_node = object.root->at({"spec", "subnet"});
      if (pool.subnet_node != nullptr) pool.subnet = parseIpv4Net(pool.subnet_node->text());
      const YamlNode* ips = object.root->at({"spec", "ips"});
      if (ips != nullptr && ips->isSeq())
        for (size_t i = 0; i < ips->items.size(); ++i)
          if (auto range = parseIpRange(ips->items[i].text()))
            pool.ranges.push_back({range->first, range->second, &ips->items[i], i});
      pools.push_back(std::move(pool));
    }
  return pools;
}

std::vector<SpiderNetwork> spiderNetworks(const LintInput& input) {
  std::vector<SpiderNetwork> networks;
  for (const auto& manifest : input.manifests)
    for (const Object& object : manifest->objects) {
      if (!isSpider(object, "SpiderMultusConfig")) continue;
      SpiderNetwork network;
      network.object = &object;
      const YamlNode* type = object.root->at({"spec", "cniType"});
      network.cni_type = type != nullptr ? type->text() : "custom";  // the CRD's default
      network.block = blockOf(network.cni_type);
      const YamlNode* block = object.root->at({"spec", network.block});
      if (block != nullptr && block->isMap()) {
        const char* key = network.cni_type == "sriov" || network.cni_type == "ib-sriov" ? "resourceName"
                                                                                        : "rdmaResourceName";
        network.resource_node = block->get(key);
        if (network.resource_node != nullptr) network.resource = network.resource_node->text();
        network.resource_path = "spec." + network.block + "." + key;
        for (const char* family : {"ipv4", "ipv6"})
          if (const YamlNode* list = block->at({"ippools", family}); list != nullptr && list->isSeq())
            for (const YamlNode& item : list->items) network.pools.push_back(item.text());
      }
      networks.push_back(std::move(network));
    }
  return networks;
}

bool poolNameMatches(const std::string& reference, const std::string& name) {
  if (!reference.empty() && reference.back() == '*')
    return name.compare(0, reference.size() - 1, reference, 0, reference.size() - 1) == 0;
  return reference == name;
}

}  // namespace railkit::k8s::rules
