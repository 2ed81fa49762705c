#pragma once
// The manifest model: what lint and the schema validator see of a file.
// A file holds documents; each document that is a mapping with `kind` is an
// object (a `List` contributes its items). Pod specs are found generically,
// wherever a mapping holds a `containers` sequence, so Pods, Deployments,
// Jobs, MPIJobs, JobSets, Trainer runtimes and Volcano jobs are covered
// without a table of every workload kind.

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "k8s/yaml.h"

namespace railkit::k8s {

struct Object {
  std::string file;
  long line = 0;
  std::string api_version;
  std::string kind;
  std::string name;
  std::string ns;  // metadata.namespace, may be empty
  const YamlNode* root = nullptr;
  std::string ref() const { return kind + "/" + (name.empty() ? "<unnamed>" : name); }
};

struct Manifest {
  std::string file;
  YamlStream stream;
  std::vector<Object> objects;
};

// Parses text into a manifest; errors are "FILE:LINE: reason".
// The returned Manifest must not be copied after objects point into it;
// it is handed out by unique ownership to keep the pointers valid.
Result<std::unique_ptr<Manifest>> loadManifest(std::string_view text, std::string_view file);

// A pod spec inside an object: `spec` holds `containers`; `metadata` is the
// sibling metadata of the template it came from (annotations), or nullptr.
struct PodSpecView {
  const Object* object = nullptr;
  const YamlNode* spec = nullptr;
  const YamlNode* metadata = nullptr;
  std::string path;  // field path of `spec`
  std::string role;  // MPIJob replica type ("Launcher", "Worker") when known
};

void forEachPodSpec(const Object& object, const std::function<void(const PodSpecView&)>& visit);

}  // namespace railkit::k8s
