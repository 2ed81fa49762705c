// railkit render node-prep: the node-side pieces no manifest can carry.
// Which upstream documentation each follows: docs/render.md, "node-prep".
#include "k8s/render/render.h"
#include "k8s/render/subnet_plan.h"

namespace railkit::k8s::render {
namespace {

constexpr const char* kSpecPath = "/etc/containerd/cri-base.json";

// containerd creates every container from base_runtime_spec WHOLE when it is
// set: a file holding only process.rlimits would drop the default mounts,
// capabilities, masked and read-only paths. So the spec is containerd's own
// default (`ctr oci spec`, as containerd's CRI config guide says), generated
// on the node by the containerd it runs, with its rlimits replaced by the
// memlock one. Its RLIMIT_NOFILE 1024 goes too: without a base spec the CRI
// drops the default rlimits and containers inherit containerd's limits; the
// spec keeps it that way. sed and grep are on every Debian node; python3 or
// jq, where present, check that the result is still JSON.
std::string baseSpecScript() {
  return std::string(R"SH(#!/bin/sh
# Run as root on every GPU node: writes containerd's base runtime spec, its own default
# (ctr oci spec) with RLIMIT_MEMLOCK unlimited as the only rlimit. RDMA memory registration
# pins pages and fails at the 64 KiB default. Then wire it to every runtime handler
# (containerd-config-v2.toml or -v3.toml) and restart containerd.
# Usage: sh containerd-base-spec.sh [SPEC_PATH]   (CTR="k3s ctr" where ctr is k3s's)
set -eu
spec="${1:-)SH") +
         kSpecPath + R"SH(}"
tmp="$spec.tmp.$$"
trap 'rm -f "$tmp"' EXIT
rlimit='{"type": "RLIMIT_MEMLOCK", "hard": 18446744073709551615, "soft": 18446744073709551615}'
${CTR:-ctr} oci spec > "$tmp"
if grep -q '"rlimits": \[[^]]*\]' "$tmp"; then
  sed -i "s/\"rlimits\": \[[^]]*\]/\"rlimits\": [$rlimit]/" "$tmp"
elif grep -q '"rlimits": \[' "$tmp"; then
  # keep the opening and closing lines (and whatever comma follows), drop the items
  sed -i "/\"rlimits\": \[/,/\]/{/\"rlimits\": \[/!{/\]/!d;};}; s/\"rlimits\": \[/&$rlimit/" "$tmp"
else
  sed -i "0,/\"process\": {/s//&\"rlimits\": [$rlimit],/" "$tmp"
fi
if command -v python3 >/dev/null 2>&1; then python3 -m json.tool "$tmp" >/dev/null
elif command -v jq >/dev/null 2>&1; then jq empty "$tmp"
fi
grep -q RLIMIT_MEMLOCK "$tmp" && grep -q '"mounts"' "$tmp" && ! grep -q RLIMIT_NOFILE "$tmp" || {
  echo "containerd-base-spec: unexpected 'ctr oci spec' output, $spec not written" >&2; exit 1; }
mv "$tmp" "$spec"
echo "wrote $spec"
if command -v containerd >/dev/null 2>&1; then
  echo 'runtime handlers in this containerd config, each needs base_runtime_spec:'
  containerd config dump 2>/dev/null | grep -E '\.runtimes\.[^].]+\]$' || true
fi
)SH";
}

// The handlers to wire: runc (the default) and the GPU Operator's nvidia.
// The plugin path differs between config versions 2 and 3.
std::string containerdConfig(int version) {
  const std::string plugin =
      version == 2 ? "plugins.\"io.containerd.grpc.v1.cri\"" : "plugins.'io.containerd.cri.v1.runtime'";
  const std::string quote = version == 2 ? "\"" : "'";
  std::string out =
      std::string("# ") +
      (version == 2 ? "containerd 1.x, config version 2" : "containerd 2.x, config version 3") +
      ": merge into /etc/containerd/config.toml.\n"
      "# Every runtime handler needs the line, the GPU Operator's nvidia (and nvidia-cdi,\n"
      "# nvidia-legacy where present) included: a pod's runtimeClassName picks the handler, and one\n"
      "# without it runs containers at the 64 KiB memlock default. Add the line under each table\n"
      "# your config has (containerd config dump lists them); never repeat a table header.\n"
      "# Then: systemctl restart containerd (running containers keep their old spec).\n"
      "version = " +
      std::to_string(version) + "\n";
  for (const char* handler : {"runc", "nvidia"})
    out += "\n[" + plugin + ".containerd.runtimes." + handler + "]\n  base_runtime_spec = " + quote +
           kSpecPath + quote + "\n";
  return out;
}

std::string netnsModeFile(const Profile& profile) {
  std::string out =
      "# /etc/modprobe.d/ib_core-netns-exclusive.conf\n"
      "# RDMA exclusive network-namespace mode: an RDMA device is visible only in the namespace that\n"
      "# owns it, so a pod sees only its own VF or claimed NIC (the rdma CNI of SR-IOV requires it).\n"
      "# The option applies when ib_core loads: reboot the node (update-initramfs -u first where the\n"
      "# initramfs loads ib_core). Never 'rdma system set netns exclusive' on a node that runs pods:\n"
      "# the kernel refuses to switch while any other network namespace exists (EBUSY).\n";
  if (profile.mode == "sriov" && profile.cni == "spiderpool")
    out +=
        "# With Spiderpool (cni spiderpool) nothing else sets it: install this file on every SR-IOV node,\n"
        "# as Spiderpool's SR-IOV guide does, before its SpiderMultusConfigs (rdmaIsolation) are used.\n";
  else if (profile.mode == "sriov")
    out +=
        "# With the SR-IOV Network Operator, the SriovNetworkPoolConfig (rdmaMode: exclusive) in the render\n"
        "# writes this same option and reboots the nodes for you: use that instead of this file.\n";
  return out + "options ib_core netns_mode=0\n";
}

}  // namespace

std::vector<std::pair<std::string, std::string>> renderNodePrep(const Profile& profile) {
  std::vector<std::pair<std::string, std::string>> files;
  files.emplace_back("containerd-base-spec.sh", baseSpecScript());
  files.emplace_back("containerd-config-v2.toml", containerdConfig(2));
  files.emplace_back("containerd-config-v3.toml", containerdConfig(3));
  files.emplace_back("containerd-memlock.conf",
                     "# /etc/systemd/system/containerd.service.d/memlock.conf\n"
                     "# Containers inherit limits from containerd; raise them at the source too.\n"
                     "[Service]\nLimitMEMLOCK=infinity\n");
  files.emplace_back(
      "nicclusterpolicy-tolerations-patch.yaml",
      "# kubectl patch nicclusterpolicy nic-cluster-policy --type merge --patch-file THIS\n"
      "# Without tolerations the driver and device-plugin pods never land on tainted GPU nodes,\n"
      "# and the RDMA resources are never advertised.\n"
      "spec:\n  tolerations:\n  - key: nvidia.com/gpu\n    operator: Exists\n    effect: NoSchedule\n");
  // Spiderpool's Macvlan solution shares the node's RDMA devices with every pod: its guide (seed 003,
  // "Shared RDMA solution (Macvlan): keep shared mode") leaves ib_core in shared mode, and exclusive
  // mode would hide the devices from the pods.
  if (!(profile.cni == "spiderpool" && profile.mode == "rdma-shared"))
    files.emplace_back("ib_core-netns-exclusive.conf", netnsModeFile(profile));
  addSpiderpoolNodePrep(profile, files);
  return files;
}

}  // namespace railkit::k8s::render
