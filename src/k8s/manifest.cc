#include "k8s/manifest.h"

#include "core/strings.h"

namespace railkit::k8s {
namespace {

Object makeObject(const YamlNode& node, const std::string& file) {
  Object object;
  object.file = file;
  object.line = node.line;
  object.root = &node;
  object.api_version = node.get("apiVersion") ? node.get("apiVersion")->text() : "";
  object.kind = node.get("kind") ? node.get("kind")->text() : "";
  if (const YamlNode* name = node.at({"metadata", "name"})) object.name = name->text();
  if (object.name.empty())
    if (const YamlNode* name = node.at({"metadata", "generateName"})) object.name = name->text();
  if (const YamlNode* ns = node.at({"metadata", "namespace"})) object.ns = ns->text();
  return object;
}

// A pod spec by its shape: a mapping whose `containers` is a list holding at
// least one container (a mapping with a name or an image). A `containers`
// that is a list of strings, or empty, is some other field of some CRD.
bool isPodSpec(const YamlNode& node) {
  const YamlNode* containers = node.get("containers");
  if (containers == nullptr || !containers->isSeq()) return false;
  for (const YamlNode& item : containers->items)
    if (item.isMap() && (item.get("name") != nullptr || item.get("image") != nullptr)) return true;
  return false;
}

// One walk finds every pod spec once: a pod spec ends the walk below it (a
// container holds no pod), and the known paths below only name roles, they
// never add a pod spec of their own.
void walk(const YamlNode& node, const std::string& path, const YamlNode* parent, const std::string& role,
          const Object& object, const std::function<void(const PodSpecView&)>& visit, int depth) {
  if (depth > kMaxPodSpecDepth) return;
  if (node.isMap()) {
    if (isPodSpec(node)) {
      PodSpecView view;
      view.object = &object;
      view.spec = &node;
      view.metadata = parent != nullptr ? parent->get("metadata") : nullptr;
      view.path = path;
      view.role = role;
      visit(view);
      return;
    }
    for (const auto& [key, value] : node.entries) {
      // The object's own metadata and observed status hold no pod to run.
      if (depth == 0 && (key == "metadata" || key == "status" || key == "apiVersion" || key == "kind"))
        continue;
      std::string child = path.empty() ? key : path + "." + key;
      std::string next_role = role;
      if (endsWith(path, "mpiReplicaSpecs")) next_role = key;
      walk(value, child, &node, next_role, object, visit, depth + 1);
    }
  } else if (node.isSeq()) {
    // Kubeflow Trainer's mpi runtimes (and JobSets shaped like them) name
    // the replicated job that runs mpirun `launcher` and the ranks `node`:
    // the same roles as an MPIJob's Launcher and Worker.
    bool replicated_jobs = endsWith(path, "replicatedJobs");
    for (size_t i = 0; i < node.items.size(); ++i) {
      std::string next_role = role;
      if (const YamlNode* name = node.items[i].get("name"); replicated_jobs && name != nullptr) {
        if (name->text() == "launcher") next_role = "Launcher";
        if (name->text() == "node") next_role = "Worker";
      }
      walk(node.items[i], path + "[" + std::to_string(i) + "]", nullptr, next_role, object, visit, depth + 1);
    }
  }
}

}  // namespace

Result<std::unique_ptr<Manifest>> loadManifest(std::string_view text, std::string_view file) {
  auto stream = parseYaml(text, file);
  if (!stream) return tl::unexpected(stream.error());
  auto manifest = std::make_unique<Manifest>();
  manifest->file = std::string(file);
  manifest->stream = std::move(*stream);
  for (const YamlDocument& doc : manifest->stream.documents) {
    const YamlNode& root = doc.root;
    // A document that is one plain scalar is prose, not a manifest.
    if (root.isScalar())
      return makeError(ErrorCode::kInvalidInput,
                       manifest->file + ":" + std::to_string(root.line) +
                           ": expected Kubernetes objects (YAML mappings), found plain text");
    if (!root.isMap() || root.get("kind") == nullptr) continue;
    // A List, or any <Kind>List (PodList, DeploymentList), with items: kubectl
    // applies every item, and an item without a kind of its own takes the
    // list's (PodList's items are Pods), so lint must see each of them.
    const std::string& kind = root.get("kind")->text();
    bool list = kind.size() >= 4 && kind.compare(kind.size() - 4, 4, "List") == 0;
    if (list && root.get("items") != nullptr && root.get("items")->isSeq()) {
      std::string item_kind = kind.substr(0, kind.size() - 4);
      for (const YamlNode& item : root.get("items")->items) {
        if (!item.isMap()) continue;
        Object object = makeObject(item, manifest->file);
        if (object.kind.empty()) object.kind = item_kind;
        if (object.api_version.empty() && root.get("apiVersion") != nullptr)
          object.api_version = root.get("apiVersion")->text();
        manifest->objects.push_back(std::move(object));
      }
      continue;
    }
    manifest->objects.push_back(makeObject(root, manifest->file));
  }
  return manifest;
}

void forEachPodSpec(const Object& object, const std::function<void(const PodSpecView&)>& visit) {
  if (object.root == nullptr) return;
  walk(*object.root, "", nullptr, "", object, visit, 0);
}

}  // namespace railkit::k8s
