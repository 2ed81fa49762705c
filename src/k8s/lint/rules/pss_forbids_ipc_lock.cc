// pss-forbids-ipc-lock: Pod Security "baseline" and "restricted" reject
// IPC_LOCK; only "privileged" admits it, so pods of such a namespace are
// refused at admission.
#include <map>

#include "k8s/lint/pod_facts.h"
#include "k8s/lint/rules/rules.h"

namespace railkit::k8s::rules {

void checkPssForbidsIpcLock(const LintInput& input, std::vector<Finding>& out) {
  std::map<std::string, const Object*> namespaces;
  for (const auto& manifest : input.manifests)
    for (const Object& object : manifest->objects)
      if (object.kind == "Namespace") namespaces[object.name] = &object;
  for (const PodFacts& pod : allPods(input)) {
    auto ns = namespaces.find(pod.view.object->ns);
    if (ns == namespaces.end()) continue;
    const YamlNode* level =
        ns->second->root->at({"metadata", "labels", "pod-security.kubernetes.io/enforce"});
    if (level == nullptr || level->text() == "privileged") continue;
    for (const ContainerFacts& container : pod.containers) {
      if (!container.ipc_lock) continue;
      out.push_back(lintFinding(
          kPssForbidsIpcLock, *pod.view.object, container.node->line,
          container.path + ".securityContext.capabilities.add",
          "namespace " + ns->first + " enforces Pod Security '" + level->text() + "', which rejects IPC_LOCK",
          "label the namespace pod-security.kubernetes.io/enforce=privileged (keep warn and "
          "audit at baseline)"));
    }
  }
}

extern const Rule kPssForbidsIpcLock = {
    {"pss-forbids-ipc-lock", Severity::kError, "namespace Pod Security level rejects IPC_LOCK",
     R"(The namespace's Pod Security level (baseline or restricted) rejects pods that add IPC_LOCK,
so the RDMA pods are refused at admission.)",
     R"(Fix: label the namespace pod-security.kubernetes.io/enforce: privileged (or a policy that
allows IPC_LOCK), or run the job in a namespace that allows it.)"},
    checkPssForbidsIpcLock};

}  // namespace railkit::k8s::rules
