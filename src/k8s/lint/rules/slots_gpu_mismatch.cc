// slots-gpu-mismatch: the MPI operator writes slotsPerWorker into the
// hostfile; more slots than GPUs oversubscribes GPUs, fewer leaves GPUs idle.
#include "k8s/lint/pod_facts.h"
#include "k8s/lint/rules/rules.h"

namespace railkit::k8s::rules {

void checkSlotsGpuMismatch(const LintInput& input, std::vector<Finding>& out) {
  for (const PodFacts& pod : allPods(input)) {
    const Object& object = *pod.view.object;
    if (object.kind != "MPIJob" || pod.view.role != "Worker") continue;
    const YamlNode* slots_node = object.root->at({"spec", "slotsPerWorker"});
    long slots = slots_node ? parseQuantityCount(slots_node->text()) : 1;
    long gpus = 0;
    for (const ContainerFacts& container : pod.containers)
      if (!container.init) gpus += gpuCount(container);
    if (gpus == 0 || gpus == slots) continue;
    out.push_back(lintFinding(kSlotsGpuMismatch, object, slots_node ? slots_node->line : object.line,
                              "spec.slotsPerWorker",
                              "slotsPerWorker is " + std::to_string(slots) + " but each worker requests " +
                                  std::to_string(gpus) + " GPUs",
                              "set slotsPerWorker: " + std::to_string(gpus)));
  }
}

extern const Rule kSlotsGpuMismatch = {
    {"slots-gpu-mismatch", Severity::kError, "MPIJob slotsPerWorker differs from GPUs per worker",
     R"(An MPIJob's slotsPerWorker is the number of ranks mpirun starts per worker. When it differs
from the GPUs each worker requests, ranks share a GPU (NCCL fails with duplicate GPU) or
GPUs sit idle.)",
     R"(Fix: set slotsPerWorker to the worker's nvidia.com/gpu count.)"},
    checkSlotsGpuMismatch};

}  // namespace railkit::k8s::rules
