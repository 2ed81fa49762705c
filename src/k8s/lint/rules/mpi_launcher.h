#pragma once
// Shared by the MPI rules: the mpirun command of an MPIJob launcher.
#include <string>
#include <vector>

#include "k8s/lint/pod_facts.h"

namespace railkit::k8s::rules {

// Names forwarded with `-x NAME` or `-x NAME=value`.
std::vector<std::string> forwardedNames(const std::string& command);
// `--mca NAME VALUE` / `-mca NAME VALUE` pairs, in order.
std::vector<std::pair<std::string, std::string>> mcaParams(const std::string& command);

}  // namespace railkit::k8s::rules
