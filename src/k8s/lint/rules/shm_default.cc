// shm-default: NCCL uses /dev/shm for intra-node transport; Kubernetes gives
// containers a 64 MiB tmpfs unless a memory-backed volume is mounted there.
// It applies where ranks run, and ranks run on GPUs: a container without a
// GPU of its own (device plugin, or a DRA claim of a GPU class) is at most
// a launcher. An `mpirun` master of a Volcano job or an rping pod with a VF
// claim runs no rank. A claim lint cannot place may hold GPUs, and counts
// only where what the container runs names NCCL and it starts no mpirun.
// Besides the workloads lint knows to run NCCL, a container with two or more
// GPUs that starts distributed training counts, whatever launcher it goes
// through (`tune run full_finetune_distributed` starts torchrun, an MPI job
// puts several ranks on a worker's GPUs): several ranks on one node share
// /dev/shm.
#include <algorithm>
#include <cctype>

#include "k8s/lint/rules/mpi_launcher.h"
#include "k8s/lint/rules/rules.h"

namespace railkit::k8s::rules {
namespace {

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

// Another pod spec of the same object whose container starts MPI ranks (an
// MPIJob's launcher, a Volcano job's mpimaster, a JobSet's launcher): the
// ranks run in the other pods of the job. nullptr if none.
const ContainerFacts* mpiLauncherOf(const std::vector<PodFacts>& pods, const PodFacts& pod) {
  for (const PodFacts& other : pods)
    if (other.view.object == pod.view.object && other.view.spec != pod.view.spec)
      for (const ContainerFacts& container : other.containers)
        if (!container.init && startsMpiRanks(container)) return &container;
  return nullptr;
}

// Several MPI ranks on one pod's GPUs running NCCL or a framework that runs
// its GPU collectives on NCCL (Horovod, TensorFlow, PyTorch, DeepSpeed,
// Megatron), as the image or command of the rank or of its launcher says:
// mpirun in the container itself, an MPIJob of any version (the first
// one's template has no launcher of its own: the image's entrypoint runs
// mpirun), or mpirun in another pod of the job. An MPI program that is
// neither (nvbandwidth, a solver) is left alone. "" when nothing says so.
std::string mpiRanks(const std::vector<PodFacts>& pods, const PodFacts& pod,
                     const ContainerFacts& container) {
  bool own = startsMpiRanks(container);
  const ContainerFacts* launcher = own ? nullptr : mpiLauncherOf(pods, pod);
  std::string how;
  if (own) {
    how = "an MPI launcher in its command";
  } else if (pod.view.object->kind == "MPIJob") {
    how = "an MPIJob";
  } else if (launcher != nullptr) {
    how = "ranks started by mpirun in " + launcher->path;
  } else {
    return "";
  }
  std::string text = lower(container.image + " " + container.command);
  if (launcher != nullptr) text += " " + lower(launcher->image + " " + launcher->command);
  for (const char* word : {"nccl", "_perf", "horovod", "tensorflow", "torch", "deepspeed", "megatron"})
    if (text.find(word) != std::string::npos) return how;
  return "";
}

// What says the container starts several ranks, without naming NCCL: the
// words and flags of a distributed launch (torchrun's --nproc_per_node,
// --nnodes and --rdzv_*, `distributed` as in `..._distributed` recipes or
// torch.distributed.run, --num_processes, world size), MPI ranks of a deep
// learning framework (above), the rendezvous variables operators and
// scripts set, or a kind whose operator starts the ranks (PyTorchJob; a
// Trainer runtime or TrainJob with a torch or MPI policy). "" when nothing
// does.
std::string distributedLaunch(const std::vector<PodFacts>& pods, const PodFacts& pod,
                              const ContainerFacts& container) {
  std::string command = lower(container.command);
  for (const char* word : {"distributed", "nproc", "nnodes", "rdzv", "num_processes", "num-processes",
                           "world_size", "world-size"})
    if (command.find(word) != std::string::npos) return std::string("'") + word + "' in its command";
  if (std::string mpi = mpiRanks(pods, pod, container); !mpi.empty()) return mpi;
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
      long gpus = deviceGpuCount(pod, container);
      if (gpus == 0) {
        bool unplaced_claim = gpuCount(pod, container) > 0;
        if (!unplaced_claim || !namesNccl(pod, container) || startsMpiRanks(container)) continue;
      }
      std::string why;
      if (isNcclWorkload(input, pod, container)) {
        why = "runs NCCL and";
      } else if (gpus >= 2) {
        std::string launch = distributedLaunch(pods, pod, container);
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
default, and NCCL fails with shared-memory errors once buffers outgrow it. It applies where
ranks run: containers with GPUs (nvidia.com/gpu and other GPU resources, or a DRA claim of a
GPU class). A container without one only launches (an mpirun master, a test pod with a VF
claim) and is left alone. Besides the containers lint knows to run NCCL, this covers a
container with two or more GPUs that starts distributed training through any launcher
(torchrun flags, a `..._distributed` recipe, MASTER_ADDR/WORLD_SIZE, a PyTorchJob, a Trainer
runtime's torch or mpi policy, or MPI ranks of NCCL or of Horovod, TensorFlow, PyTorch,
DeepSpeed or Megatron started by mpirun in the container, by an MPIJob of any version or by
another pod of the job).)",
     R"(Fix: mount an emptyDir with medium: Memory at /dev/shm (sizeLimit as needed), or set
NCCL_SHM_DISABLE=1 at a speed cost.)"},
    checkShmDefault};

}  // namespace railkit::k8s::rules
