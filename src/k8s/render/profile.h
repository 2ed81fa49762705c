#pragma once
// A render profile: the few facts about a cluster and a test from which
// `railkit render` writes manifests. Written as YAML (docs/render.md);
// flags may override fields after parsing.

#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace railkit::k8s::render {

struct TestSpec {
  std::string tool = "nccl-tests";  // nccl-tests | railkit | perftest | validate
  // collective (default all_reduce), ib_write_bw.. for perftest, or
  // validate's phase-4 collectives (comma-separated, default validate's own)
  std::string op;
  std::string backend = "nccl";  // railkit bench/validate --backend: nccl | tcp | ucx
  // Empty until finishProfile: 8 and 8G for the benchmarks; validate keeps
  // its own phase-4 sizes unless the profile gives some.
  std::string min_bytes;
  std::string max_bytes;
  // validate's --slow-fraction (a pairs link below it x the median is slow);
  // empty: validate's own 0.8.
  std::string slow_fraction;
};

// How Spiderpool addresses the rails (seed 003's two plans for a
// rail-optimized RoCE fabric): "shared", one subnet per rail for every node;
// "exclusive", one block of each rail's range per node, routed by the leaves.
struct SubnetPlan {
  std::string plan = "shared";
  std::vector<std::string> rail_ranges;  // one CIDR per data interface; default per rail
  int node_block_size = 32;              // addresses in each node's block (exclusive)
  std::vector<std::string> node_names;   // the nodes the blocks go to (exclusive)
  int pods_per_node = 1;                 // pods of the job that share a node's block
};

// The exposure modes, from the one table that pairs each with its renderer
// (modes.cc); the default is its first row.
const std::vector<const char*>& modeNames();
const char* defaultMode();
// Whether node-prep puts ib_core in exclusive netns mode for this mode.
bool wantsExclusiveRdmaNetns(const std::string& mode);
// The profile's resourceName when it gives none ("" for gke-tcpxo).
const char* defaultResourceName(const std::string& mode);
// The default of `lldp:`, the first row of lldp.cc's table.
const char* defaultLldp();

struct Profile {
  std::string name;
  std::string ns = "rdma-test";
  std::string image;  // required: holds the NCCL stack (and railkit, unless railkit_image)
  // The railkit image (railkitImage, --railkit-image): when set, every
  // workload pod copies railkit from it into an emptyDir (an initContainer)
  // and runs /opt/railkit/railkit, so `image` needs no railkit of its own.
  std::string railkit_image;
  int nodes = 2;
  int gpus_per_node = 8;              // 0 only with test.tool validate (a node that must have no GPU)
  std::string fabric = "infiniband";  // infiniband | roce | tcpxo
  std::string mode = defaultMode();   // one of modeNames()
  std::string launcher = "mpijob";    // mpijob | indexed-job | jobset | trainjob | volcano-job
  std::string resource_name;          // default per mode
  std::string control_interface = "eth0";
  std::vector<std::string> data_interfaces;  // host NICs (PF / master names)
  std::vector<std::string> hcas;             // NCCL_IB_HCA entries (optional)
  // PCI addresses of the data NICs, in dataInterfaces order (optional). The
  // host-device mode selects whole PFs by them: the SR-IOV device plugin's
  // pfNames selector matches only VFs.
  std::vector<std::string> data_pci_addresses;
  std::string shm_size = "64Gi";
  bool dra_gpus = false;  // GPUs also through DRA: one claim aligned by pcieRoot
  // The CNI and IPAM of rdma-shared and sriov: "operator" (the NVIDIA Network
  // Operator with nv-ipam, the SR-IOV Network Operator with Whereabouts) or
  // "spiderpool" (SpiderMultusConfig and SpiderIPPool; docs/render.md).
  std::string cni = "operator";
  SubnetPlan subnets;
  TestSpec test;
  // Where validate reads the nodes' LLDP (lldp.h: off, node, daemonset) and
  // the image of the rendered lldpd DaemonSet (lldpImage).
  std::string lldp = defaultLldp();
  std::string lldp_image;
  // Not from the YAML: the shared secret of this job's rendezvous
  // (railkit bench --job-token), put in a Secret for the launchers that use
  // the env bootstrap. `railkit render` makes a random one per render, or
  // takes --job-token (tests: a fixed one, so output is deterministic).
  std::string job_token;
  // Not from the YAML: the SSH key pair (OpenSSH private key text and its
  // authorized_keys line) the pods of an MPI program over indexed pods
  // (indexed-job, jobset with nccl-tests) share through a Secret. Random per
  // render, like the token.
  std::string ssh_private_key;
  std::string ssh_public_key;
};

inline constexpr const char* kLaunchers[] = {"mpijob", "indexed-job", "jobset", "trainjob", "volcano-job"};

// Launchers whose pods meet at railkit's env rendezvous (RANK, WORLD_SIZE,
// MASTER_ADDR): they get the job token Secret.
bool usesEnvBootstrap(const std::string& launcher);
// Profiles whose indexed pods start an MPI program over ssh themselves (no
// operator makes their keys): they get the SSH key Secret.
bool needsSshKeys(const Profile& profile);

Result<Profile> parseProfile(std::string_view text, std::string_view file);
// Every free-form value has the shape its field allows (values.h): a value
// that could change what render writes (a line break, a quote, `$(...)`,
// bytes that are not printable ASCII) is refused, naming the field.
// finishProfile runs it first; a command that does not finish the profile
// (render node-prep) runs it alone.
Status checkProfileValues(const Profile& profile);
// Checks values and fills defaults that depend on the mode.
Status finishProfile(Profile& profile);

}  // namespace railkit::k8s::render
