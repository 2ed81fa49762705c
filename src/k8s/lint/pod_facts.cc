#include "k8s/lint/pod_facts.h"

#include <nlohmann/json.hpp>

#include "core/strings.h"

namespace railkit::k8s {
namespace {

void readResources(const YamlNode* node, std::map<std::string, std::string>& out) {
  if (node == nullptr || !node->isMap()) return;
  for (const auto& [key, value] : node->entries) out[key] = value.text();
}

std::string joinScalars(const YamlNode* node) {
  std::string out;
  if (node == nullptr) return out;
  if (node->isScalar()) return node->value;
  if (node->isSeq())
    for (const YamlNode& item : node->items) out += item.text() + " ";
  return out;
}

ContainerFacts containerFacts(const YamlNode& node, const std::string& path, bool init) {
  ContainerFacts facts;
  facts.node = &node;
  facts.path = path;
  facts.init = init;
  facts.name = node.get("name") ? node.get("name")->text() : "";
  readResources(node.at({"resources", "requests"}), facts.requests);
  readResources(node.at({"resources", "limits"}), facts.limits);
  if (const YamlNode* add = node.at({"securityContext", "capabilities", "add"}); add && add->isSeq())
    for (const YamlNode& cap : add->items) {
      facts.cap_add.push_back(cap.text());
      if (cap.text() == "IPC_LOCK" || cap.text() == "CAP_IPC_LOCK") facts.ipc_lock = true;
    }
  if (const YamlNode* privileged = node.at({"securityContext", "privileged"}))
    facts.privileged = privileged->text() == "true" || privileged->text() == "True";
  if (const YamlNode* env = node.get("env"); env && env->isSeq())
    for (const YamlNode& item : env->items)
      if (const YamlNode* name = item.get("name"))
        facts.env[name->text()] = item.get("value") ? item.get("value")->text() : "";
  facts.command = joinScalars(node.get("command")) + joinScalars(node.get("args"));
  if (const YamlNode* mounts = node.get("volumeMounts"); mounts && mounts->isSeq())
    for (const YamlNode& mount : mounts->items)
      if (const YamlNode* mount_path = mount.get("mountPath")) facts.mount_paths.push_back(mount_path->text());
  return facts;
}

// Multus: "net-a, ns/net-b@ifname" or a JSON list of selection objects.
void readMultus(const std::string& text, PodFacts& pod) {
  std::string trimmed(trim(text));
  if (trimmed.empty()) return;
  int index = 1;
  if (trimmed.front() == '[') {
    try {
      auto list = nlohmann::json::parse(trimmed);
      for (const auto& item : list) {
        pod.network_names.push_back(item.value("name", ""));
        pod.interfaces.push_back(item.value("interface", "net" + std::to_string(index)));
        ++index;
      }
    } catch (const std::exception&) {
      pod.interfaces_known = false;
    }
    return;
  }
  for (std::string_view part : split(trimmed, ',')) {
    std::string entry(trim(part));
    if (entry.empty()) continue;
    std::string ifname = "net" + std::to_string(index++);
    if (auto at = entry.find('@'); at != std::string::npos) {
      ifname = entry.substr(at + 1);
      entry = entry.substr(0, at);
    }
    if (auto slash = entry.find('/'); slash != std::string::npos) entry = entry.substr(slash + 1);
    pod.network_names.push_back(entry);
    pod.interfaces.push_back(ifname);
  }
}

// GKE multi-network: JSON list of {"interfaceName", "network"}.
void readGkeInterfaces(const std::string& text, PodFacts& pod) {
  try {
    auto list = nlohmann::json::parse(text);
    for (const auto& item : list) {
      std::string ifname = item.value("interfaceName", "");
      if (ifname.empty()) continue;
      if (ifname != "eth0") pod.interfaces.push_back(ifname);
      pod.network_names.push_back(item.value("network", ""));
    }
  } catch (const std::exception&) {
    pod.interfaces_known = false;
  }
}

}  // namespace

long parseQuantityCount(const std::string& text) {
  auto value = parseUint(trim(text));
  return value ? static_cast<long>(*value) : 0;
}

PodFacts podFacts(const PodSpecView& view) {
  PodFacts pod;
  pod.view = view;
  const YamlNode& spec = *view.spec;
  if (const YamlNode* host = spec.get("hostNetwork")) pod.host_network = host->text() == "true";
  for (const char* key : {"initContainers", "containers"}) {
    const YamlNode* list = spec.get(key);
    if (list == nullptr || !list->isSeq()) continue;
    for (size_t i = 0; i < list->items.size(); ++i)
      if (list->items[i].isMap())
        pod.containers.push_back(containerFacts(list->items[i], view.path + "." + key + "[" + std::to_string(i) + "]",
                                                std::string(key) == "initContainers"));
  }
  if (const YamlNode* volumes = spec.get("volumes"); volumes && volumes->isSeq()) {
    for (const YamlNode& volume : volumes->items) {
      std::string name = volume.get("name") ? volume.get("name")->text() : "";
      bool memory = false;
      if (const YamlNode* medium = volume.at({"emptyDir", "medium"})) memory = medium->text() == "Memory";
      if (const YamlNode* host = volume.at({"hostPath", "path"})) memory = host->text() == "/dev/shm";
      if (!memory) continue;
      // Memory-backed only counts when it is mounted at /dev/shm.
      for (const YamlNode* list : {spec.get("containers")})
        if (list && list->isSeq())
          for (const YamlNode& container : list->items)
            if (const YamlNode* mounts = container.get("volumeMounts"); mounts && mounts->isSeq())
              for (const YamlNode& mount : mounts->items)
                if (mount.get("name") && mount.get("name")->text() == name && mount.get("mountPath") &&
                    mount.get("mountPath")->text() == "/dev/shm")
                  pod.shm_memory = true;
    }
  }
  if (const YamlNode* claims = spec.get("resourceClaims"); claims && claims->isSeq() && !claims->items.empty())
    pod.dra_claims = true;
  if (view.metadata != nullptr) {
    if (const YamlNode* multus = view.metadata->at({"annotations", "k8s.v1.cni.cncf.io/networks"}))
      readMultus(multus->text(), pod);
    if (const YamlNode* gke = view.metadata->at({"annotations", "networking.gke.io/interfaces"}))
      readGkeInterfaces(gke->text(), pod);
  }
  return pod;
}

std::vector<PodFacts> allPods(const LintInput& input) {
  std::vector<PodFacts> pods;
  for (const auto& manifest : input.manifests)
    for (const Object& object : manifest->objects)
      forEachPodSpec(object, [&](const PodSpecView& view) { pods.push_back(podFacts(view)); });
  return pods;
}

long gpuCount(const ContainerFacts& container) {
  long count = 0;
  for (const auto* list : {&container.limits, &container.requests}) {
    for (const auto& [name, value] : *list)
      if (name == "nvidia.com/gpu" || name == "amd.com/gpu") count = std::max(count, parseQuantityCount(value));
  }
  return count;
}

bool requestsRdma(const LintInput& input, const ContainerFacts& container) {
  for (const auto* list : {&container.limits, &container.requests})
    for (const auto& [name, value] : *list) {
      if (input.rdma_resources.count(name) != 0) return true;
      for (const std::string& prefix : knownRdmaResourcePrefixes())
        if (name.rfind(prefix, 0) == 0) return true;
    }
  return false;
}

namespace {
bool hasNcclIbVars(const ContainerFacts& container) {
  for (const auto& [name, value] : container.env)
    if (name.rfind("NCCL_IB_", 0) == 0 && !(name == "NCCL_IB_DISABLE" && value == "1")) return true;
  return false;
}
}  // namespace

bool usesRdma(const LintInput& input, const PodFacts& pod, const ContainerFacts& container) {
  if (requestsRdma(input, container)) return true;
  bool gpus = gpuCount(container) > 0;
  if (gpus && (pod.dra_claims || !pod.interfaces.empty())) return true;
  return gpus && hasNcclIbVars(container);
}

namespace {
bool runsNccl(const ContainerFacts& container) {
  for (const auto& [name, value] : container.env)
    if (name.rfind("NCCL_", 0) == 0) return true;
  const std::string& command = container.command;
  return command.find("_perf") != std::string::npos || command.find("torchrun") != std::string::npos;
}

// The ranks mpirun starts run in the workers, with the variables it forwards
// (-x NCCL_...), so a worker with GPUs is an NCCL process when its launcher
// starts NCCL even though the worker's own spec says nothing about it.
bool launcherStartsNccl(const PodFacts& worker) {
  if (worker.view.role != "Worker" || worker.view.object == nullptr) return false;
  bool nccl = false;
  forEachPodSpec(*worker.view.object, [&](const PodSpecView& view) {
    if (nccl || view.role != "Launcher") return;
    for (const ContainerFacts& launcher : podFacts(view).containers) {
      if (launcher.init) continue;
      if (runsNccl(launcher) || launcher.command.find("-x NCCL_") != std::string::npos) nccl = true;
    }
  });
  return nccl;
}
}  // namespace

bool isNcclWorkload(const LintInput& input, const PodFacts& pod, const ContainerFacts& container) {
  if (container.init) return false;
  if (gpuCount(container) > 0 && usesRdma(input, pod, container)) return true;
  if (runsNccl(container)) return true;
  return gpuCount(container) > 0 && launcherStartsNccl(pod);
}

bool isPureLauncher(const LintInput& input, const PodFacts& pod, const ContainerFacts& container) {
  if (pod.view.role != "Launcher") return false;
  if (const YamlNode* as_worker = pod.view.object->root->at({"spec", "runLauncherAsWorker"}))
    if (as_worker->text() == "true") return false;
  return gpuCount(container) == 0 && !requestsRdma(input, container) && !pod.dra_claims;
}

}  // namespace railkit::k8s
