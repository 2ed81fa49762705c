#pragma once
// The kubelet's and the CNI's part of running a manifest: for each pod the
// controllers made (controllers.h), what its processes will really see: argv
// after $(VAR) expansion, env with downward-API fields and Secret/ConfigMap
// keys resolved, the files Secret and ConfigMap volumes put in place, the
// interfaces (eth0 on the pod network; net1.. from the Multus annotation, a
// DRA claim's dra.net interface name, the node's own with hostNetwork), and
// an /etc/hosts that stands in for cluster DNS: the names the headless
// Services publish, in every short form the pod's search path completes.

#include <string>
#include <utility>
#include <vector>

#include "controllers.h"
#include "core/result.h"
#include "k8s/manifest.h"

namespace railkit::podrun {

struct NetIf {
  std::string name;     // as the pod sees it: eth0, net1, dranet0
  std::string address;  // IPv4/prefix
  bool data = false;    // on the data bridge (else the pod network)
  // Routes the IPAM gives the interface (destination, next hop): a
  // SpiderIPPool's routes, through the leaf of the exclusive subnet plan.
  std::vector<std::pair<std::string, std::string>> routes;
};

struct InjectedFile {
  std::string path;  // absolute, inside the container
  std::string content;
  int mode = 0644;
};

// A volume mount point: replaces whatever the image had at that path.
// Secret and ConfigMap volumes are read-only, an emptyDir is not.
struct InjectedDir {
  std::string path;
  int mode = 0777;
  bool read_only = false;
};

// A hostPath volume: the node's directory bound at the mount path. The
// runner's nodes are fake (podrun.sh gives each a directory standing in for
// its root), so `host_path` is read under that directory, never the machine's.
struct HostMount {
  std::string host_path;
  std::string path;  // inside the container
  bool read_only = false;
};

// An emptyDir volume: one directory per pod that every container mounting
// it shares (an initContainer fills it, the next containers read it).
struct PodVolumeMount {
  std::string volume;
  std::string path;  // inside the container
  bool read_only = false;
};

struct ResolvedContainer {
  std::string name;
  std::string kind;  // "init", "sidecar" (native), "main"
  std::string image;
  long run_as_user = -1;  // -1: root, as the runner's images run
  long run_as_group = -1;
  bool read_only_root = false;
  std::vector<PodVolumeMount> pod_volumes;
  std::vector<std::string> argv;
  std::vector<std::pair<std::string, std::string>> env;
  std::vector<InjectedDir> dirs;
  std::vector<InjectedFile> files;
  std::vector<HostMount> host_mounts;
};

struct ResolvedPod {
  PlannedPod pod;  // identity from the controller
  int node = 0;    // 1-based: the netns node it runs on
  std::string ip;  // eth0 address (the pod IP), without prefix length
  std::vector<NetIf> netifs;
  std::string hosts;
  std::vector<ResolvedContainer> containers;
};

struct Plan {
  std::vector<ResolvedPod> pods;
  // Addresses (IPv4/prefix) of the router on the data segment: the pools'
  // gateways, which podrun.sh puts on the data bridge so it routes between
  // blocks as the leaves would.
  std::vector<std::string> gateways;
  std::string report_pod;
  std::vector<std::string> notes;
};

struct PlanOptions {
  ControllerOptions controllers;
  std::string ctrl_net = "198.18.10";  // first three octets; node i gets .(i+10)
  std::string data_net = "198.18.20";  // rail r (0-based) adds r to the third octet
};

Result<Plan> planManifest(const k8s::Manifest& manifest, const PlanOptions& options);

// Kubernetes' $(VAR) expansion (command, args, env values): $(NAME) becomes
// NAME's value when NAME is defined before, $$ a literal $, anything else stays.
std::string expandVars(const std::string& text, const std::vector<std::pair<std::string, std::string>>& env);

}  // namespace railkit::podrun
