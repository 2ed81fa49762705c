#pragma once
// Rendering: from a Profile to the objects a mode and a launcher need.
// The pieces are plain JSON values (emitted as YAML with a leading comment
// that says why the object is there), so tests can lint and schema-check
// the very text users get.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/result.h"
#include "k8s/render/profile.h"

namespace railkit::k8s::render {

struct RenderedObject {
  std::string file_name;  // NN-kind-name.yaml for --output DIR
  std::string comment;    // leading "# " lines
  nlohmann::json object;
};

Result<std::vector<RenderedObject>> renderProfile(const Profile& profile);
// Multi-document YAML of the objects.
std::string toYaml(const std::vector<RenderedObject>& objects);
std::string toYaml(const RenderedObject& object);

// Node-side pieces (containerd memlock spec, systemd drop-in, operator
// tolerations patch, RDMA netns mode) as named text files.
std::vector<std::pair<std::string, std::string>> renderNodePrep(const Profile& profile);

}  // namespace railkit::k8s::render
