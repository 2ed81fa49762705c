// ompi-coll-conflict: the meaning doctor gives the id. Open MPI loads the
// HCOLL and UCC collective components when the image carries them (HPC-X,
// NGC images); next to NCCL they add nothing and hang or crash without their
// fabric setup, so an MPIJob whose ranks run NCCL should turn them off. A
// component set to something other than 0 is a warning; one left unset is
// info, since lint cannot see whether the image has it.
#include "core/shared_rules.h"
#include "core/strings.h"
#include "k8s/lint/rules/mpi_launcher.h"
#include "k8s/lint/rules/rules.h"

namespace railkit::k8s::rules {
namespace {

bool workersRunNccl(const LintInput& input, const std::vector<PodFacts>& pods, const PodFacts& launcher) {
  for (const PodFacts& worker : pods)
    if (worker.view.object == launcher.view.object && worker.view.role == "Worker")
      for (const ContainerFacts& container : worker.containers)
        if (isNcclWorkload(input, worker, container)) return true;
  return false;
}

// `coll ^hcoll,ucc`: every component but the listed ones.
bool excludes(std::string_view coll, std::string_view component) {
  if (coll.empty() || coll.front() != '^') return false;
  for (std::string_view item : split(coll.substr(1), ','))
    if (trim(item) == component) return true;
  return false;
}

const std::string kDisabled = "0";

// The value the ranks get for coll_<component>_enable ("0" when the
// component is excluded with coll ^...), or nullopt when nothing sets it.
// --mca on the command line overrides the environment; mpirun passes its
// own OMPI_MCA_ variables on to the ranks.
std::optional<std::string> effective(const ContainerFacts& launcher, const std::vector<PodFacts>& pods,
                                     const PodFacts& launcher_pod, const std::string& component) {
  const std::string param = "coll_" + component + "_enable";
  const std::string env_name = "OMPI_MCA_" + param;
  std::optional<std::string> value;
  for (const auto& [name, given] : mcaParams(launcher.command)) {
    if (name == param) value = given;
    if (name == "coll" && excludes(given, component)) value = kDisabled;
  }
  if (value) return value;
  if (auto forwarded = forwardedValue(launcher, env_name)) return forwarded;
  if (auto exported = assignedInScript(launcher.command, env_name)) return exported;
  if (auto coll = forwardedValue(launcher, "OMPI_MCA_coll"); coll && excludes(*coll, component))
    return kDisabled;
  if (auto it = launcher.env.find(env_name); it != launcher.env.end()) return it->second;
  if (auto it = launcher.env.find("OMPI_MCA_coll");
      it != launcher.env.end() && excludes(it->second, component))
    return kDisabled;
  for (const PodFacts& worker : pods)
    if (worker.view.object == launcher_pod.view.object && worker.view.role == "Worker")
      for (const ContainerFacts& container : worker.containers)
        if (auto it = container.env.find(env_name); it != container.env.end()) return it->second;
  return std::nullopt;
}

}  // namespace

void checkOmpiCollConflict(const LintInput& input, std::vector<Finding>& out) {
  auto pods = allPods(input);
  for (const PodFacts& launcher : pods) {
    if (launcher.view.object->kind != "MPIJob" || launcher.view.role != "Launcher") continue;
    if (!workersRunNccl(input, pods, launcher)) continue;
    for (const ContainerFacts& container : launcher.containers) {
      if (container.init || container.command.find("mpirun") == std::string::npos) continue;
      for (const char* component : {"hcoll", "ucc"}) {
        std::string param = std::string("coll_") + component + "_enable";
        auto value = effective(container, pods, launcher, component);
        if (value && *value == "0") continue;
        std::string state = value ? " is " + *value : " is unset";
        out.push_back(lintFinding(
            kOmpiCollConflict, value ? Severity::kWarning : Severity::kInfo, *launcher.view.object,
            container.node->line, container.path + ".command",
            "mpirun starts NCCL ranks and " + param + state + ": where the image carries " +
                (std::string(component) == "hcoll" ? "HCOLL" : "UCC") +
                " (HPC-X, NGC images) the collective component loads and may conflict with NCCL/UCX",
            "add --mca " + param + " 0 (or -x OMPI_MCA_" + param + "=0)"));
      }
    }
  }
}

extern const Rule kOmpiCollConflict = {shared_rules::kOmpiCollConflict, checkOmpiCollConflict};

}  // namespace railkit::k8s::rules
