// shm-default: NCCL uses /dev/shm for intra-node transport; Kubernetes gives
// containers a 64 MiB tmpfs unless a memory-backed volume is mounted there.
#include "k8s/lint/rules/mpi_launcher.h"
#include "k8s/lint/rules/rules.h"

namespace railkit::k8s::rules {

void checkShmDefault(const LintInput& input, std::vector<Finding>& out) {
  auto pods = allPods(input);
  for (const PodFacts& pod : pods) {
    if (pod.shm_memory) continue;
    // NCCL_SHM_DISABLE=1 forwarded by an MPIJob launcher reaches the ranks.
    if (auto forwarded = valueFromLauncher(pods, pod, "NCCL_SHM_DISABLE"); forwarded && *forwarded == "1")
      continue;
    for (const ContainerFacts& container : pod.containers) {
      if (isPureLauncher(input, pod, container) || !isNcclWorkload(input, pod, container)) continue;
      auto disabled = container.env.find("NCCL_SHM_DISABLE");
      if (disabled != container.env.end() && disabled->second == "1") continue;
      out.push_back(lintFinding("shm-default", Severity::kWarning, *pod.view.object, container.node->line,
                                container.path + ".volumeMounts",
                                "NCCL container '" + container.name + "' has the default 64 MiB /dev/shm",
                                "mount an emptyDir {medium: Memory, sizeLimit: ...} at /dev/shm"));
      break;
    }
  }
}

extern const Rule kShmDefault = {
    {"shm-default", Severity::kWarning, "NCCL workload keeps the 64 MiB default /dev/shm",
     R"(NCCL moves data between ranks of one node through /dev/shm; a container gets 64 MiB by
default, and NCCL fails with shared-memory errors once buffers outgrow it.
Fix: mount an emptyDir with medium: Memory at /dev/shm (sizeLimit as needed), or set
NCCL_SHM_DISABLE=1 at a speed cost.)"},
    checkShmDefault};

}  // namespace railkit::k8s::rules
