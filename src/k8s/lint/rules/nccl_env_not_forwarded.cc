// nccl-env-not-forwarded: mpirun starts the ranks on the workers through its
// own daemons; a variable set only on the launcher pod reaches them only
// when forwarded with -x.
#include <set>

#include "k8s/lint/rules/mpi_launcher.h"
#include "k8s/lint/rules/rules.h"

namespace railkit::k8s::rules {

void checkNcclEnvNotForwarded(const LintInput& input, std::vector<Finding>& out) {
  auto pods = allPods(input);
  for (const PodFacts& launcher : pods) {
    if (launcher.view.object->kind != "MPIJob" || launcher.view.role != "Launcher") continue;
    std::set<std::string> worker_env;
    for (const PodFacts& worker : pods)
      if (worker.view.object == launcher.view.object && worker.view.role == "Worker")
        for (const ContainerFacts& container : worker.containers)
          for (const auto& [name, value] : container.env) worker_env.insert(name);
    for (const ContainerFacts& container : launcher.containers) {
      auto forwarded = forwardedNames(container.command);
      std::set<std::string> forwarded_set(forwarded.begin(), forwarded.end());
      for (const auto& [name, value] : container.env) {
        if (name.rfind("NCCL_", 0) != 0 && name.rfind("UCX_", 0) != 0) continue;
        if (worker_env.count(name) || forwarded_set.count(name)) continue;
        out.push_back(lintFinding(kNcclEnvNotForwarded, *launcher.view.object, container.node->line,
                                  container.path + ".env",
                                  name + " is set on the launcher but neither on the workers nor forwarded "
                                         "with -x: the ranks never see it",
                                  "add '-x " + name + "' to mpirun or set it on the Worker template"));
      }
    }
  }
}

extern const Rule kNcclEnvNotForwarded = {
    {"nccl-env-not-forwarded", Severity::kWarning,
     "NCCL/UCX variables on the MPI launcher do not reach the ranks",
     R"(mpirun starts the ranks over ssh: environment set on the MPIJob launcher does not reach the
workers unless it is exported with -x (or set on the workers). NCCL_*/UCX_* settings then
apply to the launcher only and the ranks run with defaults.)",
     R"(Fix: pass each variable with -x NAME (or -x NAME=value), or set it in the worker template.)"},
    checkNcclEnvNotForwarded};

}  // namespace railkit::k8s::rules
