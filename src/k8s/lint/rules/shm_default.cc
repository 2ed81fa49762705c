// shm-default: NCCL uses /dev/shm for intra-node transport; Kubernetes gives
// containers a 64 MiB tmpfs unless a memory-backed volume is mounted there.
// Besides the workloads lint knows to run NCCL, a container with two or more
// GPUs that starts distributed training counts, whatever launcher it goes
// through (`tune run full_finetune_distributed` starts torchrun): several
// ranks on one node share /dev/shm.
#include <algorithm>
#include <cctype>

#include "k8s/lint/rules/mpi_launcher.h"
#include "k8s/lint/rules/rules.h"

namespace railkit::k8s::rules {
namespace {

// What says the container starts several ranks, without naming a launcher:
// the words and flags of a distributed launch (torchrun's --nproc_per_node,
// --nnodes and --rdzv_*, `distributed` as in `..._distributed` recipes or
// torch.distributed.run, --num_processes, world size), the rendezvous
// variables operators and scripts set, or a kind whose operator starts the
// ranks (PyTorchJob; a Trainer runtime or TrainJob with a torch or MPI
// policy). "" when nothing does.
std::string distributedLaunch(const PodFacts& pod, const ContainerFacts& container) {
  std::string command = container.command;
  std::transform(command.begin(), command.end(), command.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const char* word : {"distributed", "nproc", "nnodes", "rdzv", "num_processes", "num-processes",
                           "world_size", "world-size"})
    if (command.find(word) != std::string::npos) return std::string("'") + word + "' in its command";
  for (const char* name :
       {"MASTER_ADDR", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "PET_NNODES", "PET_NPROC_PER_NODE"})
    if (container.env.count(name) != 0) return std::string(name) + " in its env";
  const Object& object = *pod.view.object;
  if (object.kind == "PyTorchJob") return "a PyTorchJob";
  for (const char* policy : {"torch", "mpi"})
    if (object.root->at({"spec", "mlPolicy", policy}) != nullptr)
      return object.kind + " with mlPolicy." + policy;
  return "";
}

void report(const PodFacts& pod, const ContainerFacts& container, const std::string& why,
            std::vector<Finding>& out) {
  out.push_back(lintFinding(kShmDefault, *pod.view.object, container.node->line,
                            container.path + ".volumeMounts",
                            "container '" + container.name + "' " + why + " has the default 64 MiB /dev/shm",
                            "mount an emptyDir {medium: Memory, sizeLimit: ...} at /dev/shm"));
}

}  // namespace

void checkShmDefault(const LintInput& input, std::vector<Finding>& out) {
  auto pods = allPods(input);
  for (const PodFacts& pod : pods) {
    if (pod.shm_memory) continue;
    // NCCL_SHM_DISABLE=1 forwarded by an MPIJob launcher reaches the ranks.
    if (auto forwarded = valueFromLauncher(pods, pod, "NCCL_SHM_DISABLE"); forwarded && *forwarded == "1")
      continue;
    for (const ContainerFacts& container : pod.containers) {
      if (container.init || isPureLauncher(input, pod, container)) continue;
      auto disabled = container.env.find("NCCL_SHM_DISABLE");
      if (disabled != container.env.end() && disabled->second == "1") continue;
      std::string why;
      if (isNcclWorkload(input, pod, container)) {
        why = "runs NCCL and";
      } else if (long gpus = gpuCount(pod, container); gpus >= 2) {
        std::string launch = distributedLaunch(pod, container);
        if (launch.empty()) continue;
        why = "starts distributed training on " + std::to_string(gpus) + " GPUs (" + launch + ") and";
      } else {
        continue;
      }
      report(pod, container, why, out);
      break;
    }
  }
}

extern const Rule kShmDefault = {
    {"shm-default", Severity::kWarning, "NCCL workload keeps the 64 MiB default /dev/shm",
     R"(NCCL moves data between ranks of one node through /dev/shm; a container gets 64 MiB by
default, and NCCL fails with shared-memory errors once buffers outgrow it. Besides the
containers lint knows to run NCCL, this covers a container with two or more GPUs that starts
distributed training through any launcher (torchrun flags, a `..._distributed` recipe,
MASTER_ADDR/WORLD_SIZE, a PyTorchJob or a Trainer runtime's torch policy).)",
     R"(Fix: mount an emptyDir with medium: Memory at /dev/shm (sizeLimit as needed), or set
NCCL_SHM_DISABLE=1 at a speed cost.)"},
    checkShmDefault};

}  // namespace railkit::k8s::rules
