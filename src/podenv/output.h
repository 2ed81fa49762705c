#pragma once
// How a PodEnv is printed: shell text for `eval`, one JSON document, and the
// lines for stderr. Kept apart from the computation so the CLI stays thin and
// the tests read the exact text a pod's shell will run.

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "podenv/pod_env.h"

namespace railkit::podenv {

// `export NAME='value'` lines in order, preceded by `#` comment lines (a
// summary, each note and each missing thing). With `exports_allowed` false
// (a failed --check) only the comments are written, so an `eval` of the text
// sets nothing.
std::string renderShell(const PodEnv& env, bool exports_allowed);

// "data interface net2: not in this pod (...)": one line per missing thing.
std::string describeMissing(const Missing& missing);

// {"root", "control_interface", "control_source", "exports", "ports",
//  "notes", "missing", "ok"} (docs/env.md).
nlohmann::json podEnvToJson(const PodEnv& env, const std::string& root, bool ok);

}  // namespace railkit::podenv
