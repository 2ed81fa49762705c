// railkit render node-prep with cni spiderpool: what seed 003's host
// preparation asks of each node beside the manifests. The chart's values
// turn on the RDMA component of the mode and Spiderpool's RDMA metrics; the
// routing script gives every rail NIC of the node its own policy table (the
// doctor's roce-multirail rules look for exactly that), loose rp_filter and
// ARP answered only on the NIC that owns the address, and with the exclusive
// plan the route to the rail's whole range through the node's leaf.
#include "k8s/render/subnet_plan.h"

namespace railkit::k8s::render {
namespace {

std::string valuesFile(const Profile& profile) {
  std::string out =
      "# helm install spiderpool spiderpool/spiderpool -n spiderpool --create-namespace -f "
      "spiderpool-values.yaml\n"
      "# (helm repo add spiderpool https://spidernet-io.github.io/spiderpool)\n";
  if (profile.mode == "sriov")
    out +=
        "# SR-IOV: the chart installs the SR-IOV network operator (its policies are in the render).\n"
        "sriov:\n  install: true\n";
  else
    out +=
        "# Macvlan with shared RDMA: the chart installs the RDMA shared device plugin (its per-rail\n"
        "# config is the ConfigMap in the render).\n"
        "rdma:\n  rdmaSharedDevicePlugin:\n    install: true\n";
  out +=
      "# Spiderpool's own RDMA metrics (per pod RDMA counters) from the agent.\n"
      "spiderpoolAgent:\n  prometheus:\n    enabled: true\n    enabledRdmaMetric: true\n";
  return out;
}

std::string routesScript(const Profile& profile) {
  const bool exclusive = profile.subnets.plan == "exclusive";
  std::string out = R"SH(#!/bin/sh
# Run as root on every node at boot, after the rail NICs have their addresses: each rail NIC
# gets a policy table of its own (from its address, out of its own port), rp_filter loose and
# ARP answered only for its own address, so the rails' traffic never leaves through another
# rail (railkit doctor: roce-multirail-no-policy-routing, -rp-filter, -arp).
)SH";
  if (exclusive)
    out +=
        "# subnetPlan exclusive: each NIC's subnet is the node's block of its rail; the rail's whole range\n"
        "# goes through the block's first address, the leaf, which routes between the nodes' blocks.\n";
  out += R"SH(set -eu
first_host() {
  old_ifs=$IFS
  IFS=.
  set -- ${1%/*}
  IFS=$old_ifs
  n=$(( (($1 << 24) | ($2 << 16) | ($3 << 8) | $4) + 1 ))
  echo "$(( (n >> 24) & 255 )).$(( (n >> 16) & 255 )).$(( (n >> 8) & 255 )).$(( n & 255 ))"
}
rail() {
  nic=$1 table=$2 range=$3
  addr=$(ip -4 -o addr show dev "$nic" | awk '{ print $4; exit }')
  [ -n "$addr" ] || { echo "rail-routes: $nic has no IPv4 address: address the rail NICs first" >&2; exit 1; }
  ip=${addr%/*}
  subnet=$(ip -4 route show dev "$nic" proto kernel scope link | awk '{ print $1; exit }')
  ip route replace "$subnet" dev "$nic" src "$ip" table "$table"
)SH";
  if (exclusive)
    out += R"SH(  gw=$(first_host "$subnet")
  ip route replace "$range" via "$gw" dev "$nic" table "$table"
  ip route replace "$range" via "$gw" dev "$nic"
)SH";
  out += R"SH(  while ip rule del from "$ip" lookup "$table" 2>/dev/null; do :; done
  ip rule add from "$ip" lookup "$table" priority "$table"
  sysctl -qw "net.ipv4.conf.$nic.rp_filter=2" "net.ipv4.conf.$nic.arp_ignore=1" "net.ipv4.conf.$nic.arp_announce=2"
  echo "rail-routes: $nic $ip: table $table"
}
)SH";
  for (size_t i = 0; i < profile.data_interfaces.size(); ++i)
    out += "rail " + profile.data_interfaces[i] + " " + std::to_string(100 + i) + " " +
           profile.subnets.rail_ranges[i] + "\n";
  return out;
}

}  // namespace

void addSpiderpoolNodePrep(const Profile& profile, std::vector<std::pair<std::string, std::string>>& files) {
  if (profile.cni != "spiderpool") return;
  files.emplace_back("spiderpool-values.yaml", valuesFile(profile));
  if (profile.fabric == "roce") files.emplace_back("spiderpool-rail-routes.sh", routesScript(profile));
}

}  // namespace railkit::k8s::render
