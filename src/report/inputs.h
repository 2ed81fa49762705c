#pragma once
// What `report` reads: railkit JSON documents, each of which says what it is
// ("kind": "railkit.validate/v1", ...), so nothing is guessed; and text that
// the logs reader recognises (nccl-tests tables, perftest output, NCCL debug
// logs), which becomes one railkit.logs/v1 document exactly as
// `railkit logs --json` would write it. An input that is neither is an error
// value naming the file; the other inputs are still loaded.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/result.h"

namespace railkit::report {

struct Document {
  std::string source;   // the file(s) it came from, for the page
  std::string kind;     // "railkit.validate/v1", ...
  nlohmann::json json;  // the whole document
};

struct LoadedInputs {
  std::vector<Document> documents;
  std::vector<Error> errors;  // one per input that could not be used
};

// The kinds a section can draw. Others (explain, rules, env, ...) are refused
// by name so the user knows the page would not show them.
bool kindIsReported(const std::string& kind);

// One JSON document from text; kInvalidInput when it has no "kind", an
// unknown one, or is not an object.
Result<Document> documentFromJson(const std::string& source, nlohmann::json json);

// Reads every path in order. JSON inputs become documents; text inputs are
// analysed together as one logs job (one file per rank is common) and become
// one logs document after the JSON ones.
LoadedInputs loadInputs(const std::vector<std::string>& paths);

}  // namespace railkit::report
