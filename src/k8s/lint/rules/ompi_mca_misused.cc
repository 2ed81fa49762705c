// ompi-mca-misused: Open MPI parameters that do nothing or contradict each
// other: an MCA name forwarded with -x (it is an environment variable then,
// not a parameter; the OMPI_MCA_ prefix is needed), or one parameter given
// twice with different values.
#include <map>

#include "k8s/lint/rules/mpi_launcher.h"
#include "k8s/lint/rules/rules.h"

namespace railkit::k8s::rules {
namespace {
bool looksLikeMca(const std::string& name) {
  for (const char* prefix : {"btl_", "pml_", "coll_", "mtl_", "osc_", "oob_", "plm_", "rmaps_", "hwloc_",
                             "opal_", "orte_", "mpi_"})
    if (name.rfind(prefix, 0) == 0) return true;
  return false;
}
}  // namespace

void checkOmpiMcaMisused(const LintInput& input, std::vector<Finding>& out) {
  for (const PodFacts& pod : allPods(input))
    for (const ContainerFacts& container : pod.containers) {
      if (container.command.find("mpirun") == std::string::npos) continue;
      for (const std::string& name : forwardedNames(container.command))
        if (looksLikeMca(name))
          out.push_back(lintFinding(kOmpiMcaMisused, *pod.view.object, container.node->line,
                                    container.path + ".command",
                                    "'-x " + name +
                                        "' forwards an environment variable named like an MCA "
                                        "parameter; Open MPI ignores it",
                                    "use '--mca " + name + " VALUE' or -x OMPI_MCA_" + name));
      std::map<std::string, std::string> seen;
      for (const auto& [name, value] : mcaParams(container.command)) {
        auto [it, inserted] = seen.emplace(name, value);
        if (!inserted && it->second != value)
          out.push_back(lintFinding(
              kOmpiMcaMisused, *pod.view.object, container.node->line, container.path + ".command",
              "--mca " + name + " is given twice (" + it->second + " and " + value + ")", "keep one value"));
      }
    }
}

extern const Rule kOmpiMcaMisused = {
    {"ompi-mca-misused", Severity::kWarning,
     "Open MPI parameters that are ineffective or contradict each other",
     R"(Open MPI parameters that do nothing or contradict each other: an MCA name passed with -x
(that exports an environment variable of that name, not the parameter), or --mca of one
parameter given twice with different values.)",
     R"(Fix: pass MCA parameters with --mca NAME VALUE or -x OMPI_MCA_NAME=VALUE, once.)"},
    checkOmpiMcaMisused};

}  // namespace railkit::k8s::rules
