#pragma once
// What the rules need to know about a container, derived once from the
// manifest: resources, capabilities, environment, command text, networks.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "k8s/lint/lint.h"

namespace railkit::k8s {

struct ContainerFacts {
  const YamlNode* node = nullptr;
  std::string name;
  std::string image;
  std::string path;  // field path of the container
  std::map<std::string, std::string> requests, limits;
  std::vector<std::string> cap_add;
  bool ipc_lock = false;  // IPC_LOCK (or CAP_IPC_LOCK, see cap-prefix) added
  bool privileged = false;
  std::map<std::string, std::string> env;  // literal env values
  std::string command;                     // command + args joined
  std::vector<std::string> mount_paths;
  std::vector<std::string> claims;  // resources.claims: the pod claims whose devices it gets
  bool init = false;
};

// A pod-level resourceClaims entry and what its claim gives.
struct PodClaim {
  std::string name;
  std::string source;  // "ResourceClaimTemplate x" or "ResourceClaim x"
  long line = 0;
  bool resolved = false;  // its template or claim is in the input
  DraDevices devices;
};

struct PodFacts {
  PodSpecView view;
  std::vector<ContainerFacts> containers;
  bool host_network = false;
  bool shm_memory = false;                 // /dev/shm backed by memory (emptyDir Memory or host /dev/shm)
  std::vector<std::string> network_names;  // multus / GKE networks
  std::vector<std::string> interfaces;     // interface names the pod will have (besides lo)
  bool interfaces_known = true;            // false when an annotation could not be read
  std::vector<PodClaim> claims;            // pod-level resourceClaims
  // What the claims give together; a claim not in the input gives nothing
  // but leaves the pod's interface names unknown.
  DraDevices dra;
  // GKE GPUDirect-TCPX/TCPXO: several NICs, but NCCL moves data over TCP
  // through the FasTrak plugin and its daemon; nothing in the pod is RDMA.
  bool gpudirect_tcpx = false;
  // Platform whose nodes run containers with RLIMIT_MEMLOCK unlimited (the
  // runtime's own limit), named for the finding; empty when not recognised.
  std::string memlock_platform;
};

PodFacts podFacts(const PodSpecView& view);

// Every pod spec of every object in the input.
std::vector<PodFacts> allPods(const LintInput& input);

// A device-plugin resource that is a GPU (nvidia.com/gpu, its MIG slices
// and shared form, amd.com/gpu, Intel's gpu.intel.com/i915 and /xe).
bool isGpuResource(const std::string& name);
// GPU count requested by a container through device-plugin resources.
long gpuCount(const ContainerFacts& container);
// The GPUs the container is known to get: its GPU resources plus the GPUs
// of the DRA claims it lists that lint placed (a GPU device class).
long deviceGpuCount(const PodFacts& pod, const ContainerFacts& container);
// The same plus the GPUs of the DRA claims the container lists (a listed
// claim lint cannot place counts as one GPU).
long gpuCount(const PodFacts& pod, const ContainerFacts& container);
// Whether the container requests a resource in input.rdma_resources.
bool requestsRdma(const LintInput& input, const ContainerFacts& container);
// RDMA by any route: resource, RDMA network, DRA RDMA or NIC claim, or GPUs + NCCL IB vars.
bool usesRdma(const LintInput& input, const PodFacts& pod, const ContainerFacts& container);
// GPUs with RDMA, NCCL_ variables, nccl-tests, or torchrun with GPUs (a
// CPU-only torchrun uses gloo, not NCCL).
bool isNcclWorkload(const LintInput& input, const PodFacts& pod, const ContainerFacts& container);
// What the container runs, or the MPIJob launcher starting it, says NCCL:
// NCCL_ variables, nccl-tests, torchrun with GPUs, `-x NCCL_...`.
bool namesNccl(const PodFacts& pod, const ContainerFacts& container);
// The container runs mpirun, mpiexec or horovodrun: it starts MPI ranks,
// which run where its hostfile points unless it has GPUs of its own.
bool startsMpiRanks(const ContainerFacts& container);
// An MPIJob launcher that only starts ranks (no GPU, no RDMA device).
bool isPureLauncher(const LintInput& input, const PodFacts& pod, const ContainerFacts& container);

long parseQuantityCount(const std::string& text);

// An extended resource (a domain-qualified name outside kubernetes.io, as
// nvidia.com/gpu or rdma/ib): it cannot be overcommitted, so the API server
// wants its request equal to its limit.
bool isExtendedResource(const std::string& name);

}  // namespace railkit::k8s
