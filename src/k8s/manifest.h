#pragma once
// The manifest model: what lint and the schema validator see of a file.
// A file holds documents; each document that is a mapping with `kind` is an
// object (a `List` contributes its items). Pod specs are found by their shape,
// wherever in the object a mapping holds a `containers` list of containers,
// so Pods, Deployments, Jobs, MPIJobs of every version, JobSets, Trainer
// runtimes, Volcano jobs, LeaderWorkerSets and the CRDs of any other operator
// are covered without a table of workload kinds; each view carries the path
// where its pod spec was found.

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
  std::string path;  // field path of `spec` ("spec.template.spec", "spec.tasks[1].template.spec")
  std::string role;  // MPIJob replica type ("Launcher", "Worker") when known
};

// How deep below the object's root a pod spec is looked for. Real ones sit at
// depth 2 to 8 (spec.template.spec; a Trainer runtime's
// spec.template.spec.replicatedJobs[0].template.spec.template.spec); the YAML
// reader already refuses documents nested deeper than 200, and this keeps
// the walk's recursion far below that whatever a document holds.
inline constexpr int kMaxPodSpecDepth = 64;

// Visits every pod spec of `object` once, in document order. Known paths
// only name roles (an MPIJob's mpiReplicaSpecs keys; a Trainer or JobSet
// replicated job named `launcher` or `node`); they add no pod spec.
void forEachPodSpec(const Object& object, const std::function<void(const PodSpecView&)>& visit);

}  // namespace railkit::k8s
