#pragma once
// Shared by the MPI rules: the mpirun command of an MPIJob launcher.
#include <optional>
#include <string>
#include <vector>

#include "k8s/lint/pod_facts.h"

namespace railkit::k8s::rules {

// Names forwarded with `-x NAME` or `-x NAME=value`.
std::vector<std::string> forwardedNames(const std::string& command);
// `-x NAME` (value: nullopt, mpirun sends its own environment's value) and
// `-x NAME=value`, in order.
std::vector<std::pair<std::string, std::optional<std::string>>> forwardedVars(const std::string& command);
// The value the ranks get for `name` from this launcher container: its
// `-x NAME=value`, or, when it forwards `-x NAME`, the value its script
// exports or else its own env value.
std::optional<std::string> forwardedValue(const ContainerFacts& launcher, const std::string& name);
// The last `NAME=value` word of a launcher script (`export NAME=value`,
// `NAME=value mpirun ...`, `-x NAME=value`); nullopt when there is none.
std::optional<std::string> assignedInScript(const std::string& command, const std::string& name);
// For an MPIJob worker: the value its ranks get for `name` from the job's
// launcher (-x), which overrides the worker's own env; nullopt otherwise.
std::optional<std::string> valueFromLauncher(const std::vector<PodFacts>& pods, const PodFacts& worker,
                                             const std::string& name);
// `--mca NAME VALUE` / `-mca NAME VALUE` pairs, in order.
std::vector<std::pair<std::string, std::string>> mcaParams(const std::string& command);

}  // namespace railkit::k8s::rules
