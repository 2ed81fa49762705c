#pragma once
// Writes a JSON value as block YAML. Strings are double-quoted (JSON escapes
// are valid YAML), so no value is ever re-typed by a YAML reader: "1" stays
// a string, "true" stays a string, and only JSON numbers and booleans are
// plain. Multi-line strings (scripts) use literal blocks for readability.
#include <nlohmann/json.hpp>
#include <string>

namespace railkit::k8s::render {

std::string emitYaml(const nlohmann::json& value);

}  // namespace railkit::k8s::render
