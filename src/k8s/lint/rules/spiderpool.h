#pragma once
// What the Spiderpool rules share: SpiderIPPool and SpiderMultusConfig
// objects read once (spiderpool.spidernet.io/v2beta1, the CRDs in
// ../shared/schemas/crds). The schema rule checks their shape; these
// helpers read what the shape cannot say (addresses, names, references).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/ipv4.h"
#include "k8s/lint/lint.h"

namespace railkit::k8s::rules {

// One "ips" entry: an address or FIRST-LAST.
struct IpRange {
  uint32_t first = 0;
  uint32_t last = 0;
  const YamlNode* node = nullptr;
  size_t index = 0;
};

struct SpiderPool {
  const Object* object = nullptr;
  const YamlNode* subnet_node = nullptr;
  std::optional<Ipv4Net> subnet;  // nullopt: absent or not a CIDR
  std::vector<IpRange> ranges;    // the entries of ips that parse
};

struct SpiderNetwork {
  const Object* object = nullptr;
  std::string cni_type;
  std::string block;  // the cniType's own block: macvlan, sriov, ibsriov...
  // The RDMA resource the attachment needs: rdmaResourceName (macvlan,
  // ipvlan, vlan) or resourceName (sriov, ib-sriov); with its node.
  std::string resource;
  const YamlNode* resource_node = nullptr;
  std::string resource_path;
  std::vector<std::string> pools;  // ippools.ipv4 and ipv6 names (may end in '*')
};

// "a.b.c.d" or "a.b.c.d-e.f.g.h" with first <= last.
std::optional<std::pair<uint32_t, uint32_t>> parseIpRange(std::string_view text);
std::vector<SpiderPool> spiderPools(const LintInput& input);
std::vector<SpiderNetwork> spiderNetworks(const LintInput& input);
// Spiderpool's pool references take a trailing '*' as "every pool whose name starts so".
bool poolNameMatches(const std::string& reference, const std::string& name);

}  // namespace railkit::k8s::rules
