// ompi-btl-if-unset: with several interfaces in the pod, Open MPI's TCP BTL
// and OOB try them all, including the RDMA NIC that has no cluster DNS and
// no route to the launcher; pin the control plane to the pod network.
#include "core/shared_rules.h"
#include "k8s/lint/rules/mpi_launcher.h"
#include "k8s/lint/rules/rules.h"

namespace railkit::k8s::rules {

void checkOmpiBtlIfUnset(const LintInput& input, std::vector<Finding>& out) {
  auto pods = allPods(input);
  for (const PodFacts& launcher : pods) {
    if (launcher.view.object->kind != "MPIJob" || launcher.view.role != "Launcher") continue;
    bool multi_if = false;
    for (const PodFacts& worker : pods)
      if (worker.view.object == launcher.view.object && worker.view.role == "Worker")
        // A DRA claim adds an interface only when it gives a NIC (not an
        // IMEX channel, not GPUs alone).
        multi_if = multi_if || !worker.interfaces.empty() || worker.dra.nic;
    if (!multi_if) continue;
    for (const ContainerFacts& container : launcher.containers) {
      if (container.command.find("mpirun") == std::string::npos) continue;
      bool pinned = container.command.find("btl_tcp_if_") != std::string::npos ||
                    container.env.count("OMPI_MCA_btl_tcp_if_include") ||
                    container.env.count("OMPI_MCA_btl_tcp_if_exclude");
      if (pinned) continue;
      out.push_back(lintFinding(kOmpiBtlIfUnset, *launcher.view.object, container.node->line,
                                container.path + ".command",
                                "workers have extra network interfaces but mpirun does not set "
                                "btl_tcp_if_include/exclude: MPI may route over the RDMA interface",
                                "add --mca btl_tcp_if_include eth0 --mca oob_tcp_if_include eth0"));
    }
  }
}

extern const Rule kOmpiBtlIfUnset = {shared_rules::kOmpiBtlIfUnset, checkOmpiBtlIfUnset};

}  // namespace railkit::k8s::rules
