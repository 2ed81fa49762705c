#include "k8s/lint/pod_facts.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

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
  facts.image = node.get("image") ? node.get("image")->text() : "";
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
      if (const YamlNode* mount_path = mount.get("mountPath"))
        facts.mount_paths.push_back(mount_path->text());
  if (const YamlNode* claims = node.at({"resources", "claims"}); claims && claims->isSeq())
    for (const YamlNode& claim : claims->items)
      if (const YamlNode* name = claim.get("name")) facts.claims.push_back(name->text());
  return facts;
}

// A string member of a JSON selection object: `fallback` when absent,
// nullopt when present but not a string (the annotation is user text).
std::optional<std::string> stringField(const nlohmann::json& item, const char* key, std::string fallback) {
  auto it = item.find(key);
  if (it == item.end()) return fallback;
  if (!it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

// Multus: "net-a, ns/net-b@ifname" or a JSON list of selection objects.
void readMultus(const std::string& text, PodFacts& pod) {
  std::string trimmed(trim(text));
  if (trimmed.empty()) return;
  int index = 1;
  if (trimmed.front() == '{') {  // neither a list of names nor a JSON list
    pod.interfaces_known = false;
    return;
  }
  if (trimmed.front() == '[') {
    auto list = nlohmann::json::parse(trimmed, nullptr, /*allow_exceptions=*/false);
    if (!list.is_array()) {  // discarded (not JSON) or not a list
      pod.interfaces_known = false;
      return;
    }
    for (const auto& item : list) {
      if (!item.is_object()) {
        pod.interfaces_known = false;
        continue;
      }
      auto name = stringField(item, "name", "");
      auto ifname = stringField(item, "interface", "net" + std::to_string(index));
      ++index;
      if (!name || !ifname) {
        pod.interfaces_known = false;
        continue;
      }
      pod.network_names.push_back(*name);
      pod.interfaces.push_back(*ifname);
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
  auto list = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!list.is_array()) {
    pod.interfaces_known = false;
    return;
  }
  for (const auto& item : list) {
    if (!item.is_object()) {
      pod.interfaces_known = false;
      continue;
    }
    auto ifname = stringField(item, "interfaceName", "");
    auto network = stringField(item, "network", "");
    if (!ifname || ifname->empty() || !network) {
      pod.interfaces_known = false;
      continue;
    }
    if (*ifname != "eth0") pod.interfaces.push_back(*ifname);
    pod.network_names.push_back(*network);
  }
}

// Whether a key or scalar under `node` contains `needle` (labels, node
// selectors, images: the marks a platform leaves in its manifests).
bool mentions(const YamlNode& node, std::string_view needle, int depth = 0) {
  if (depth > 40) return false;
  if (node.isScalar()) return node.value.find(needle) != std::string::npos;
  for (const auto& [key, value] : node.entries)
    if (key.find(needle) != std::string::npos || mentions(value, needle, depth + 1)) return true;
  for (const YamlNode& item : node.items)
    if (mentions(item, needle, depth + 1)) return true;
  return false;
}

bool mentionsTcpx(const std::string& text) {
  for (const char* mark :
       {"NCCL_FASTRAK_", "NCCL_GPUDIRECTTCPX_", "gpudirect-tcpx", "tcpgpudmarxd", "fastrak"})
    if (text.find(mark) != std::string::npos) return true;
  return false;
}

bool containerMentionsTcpx(const ContainerFacts& container) {
  if (mentionsTcpx(container.image) || mentionsTcpx(container.command)) return true;
  for (const auto& [name, value] : container.env)
    if (mentionsTcpx(name)) return true;
  return false;
}

// Platforms whose GPU nodes run every container with memlock unlimited (the
// runtime's own limit, which containers inherit), so RDMA registration works
// without IPC_LOCK: EKS GPU nodes (EFA device-plugin pods), GKE's GPU node
// images (GPUDirect-RDMA/gIB, multi-network pods), CoreWeave's nodes. Their
// official examples (aws-samples, container-engine-accelerators,
// coreweave/nccl-tests) run RDMA without IPC_LOCK on that basis.
std::string memlockPlatform(const PodSpecView& view, const std::vector<ContainerFacts>& containers) {
  for (const ContainerFacts& container : containers)
    for (const auto* list : {&container.limits, &container.requests})
      for (const auto& [name, value] : *list)
        if (name.rfind("vpc.amazonaws.com/efa", 0) == 0) return "EKS (EFA nodes)";
  auto marked = [&](std::string_view needle) {
    return mentions(*view.spec, needle) || (view.metadata != nullptr && mentions(*view.metadata, needle));
  };
  if (marked("networking.gke.io/") || marked("cloud.google.com/gke") || marked("gpudirect-gib") ||
      marked("mrdma.google.com"))
    return "GKE";
  if (marked("coreweave.cloud/") || marked("ghcr.io/coreweave/")) return "CoreWeave";
  return "";
}

// A Volcano Job plugin's `--name=value` argument, or `fallback`.
std::string volcanoFlag(const YamlNode* args, const std::string& name, const std::string& fallback) {
  if (args == nullptr || !args->isSeq()) return fallback;
  for (const YamlNode& arg : args->items)
    for (const char* dashes : {"--", "-"})
      if (arg.text().rfind(dashes + name + "=", 0) == 0)
        return arg.text().substr(name.size() + 1 + strlen(dashes));
  return fallback;
}

// Volcano's job plugins add env at pod creation (volcano-sh/volcano
// pkg/controllers/job/plugins): pytorch gives the containers of its master
// and worker tasks MASTER_ADDR, MASTER_PORT, WORLD_SIZE and RANK; env gives
// every container VC_TASK_INDEX. They count as set; a value that differs per
// pod is left empty.
void addVolcanoPluginEnv(const PodSpecView& view, PodFacts& pod) {
  const Object* object = view.object;
  if (object == nullptr || object->api_version.rfind("batch.volcano.sh/", 0) != 0) return;
  const YamlNode* plugins = object->root->at({"spec", "plugins"});
  const YamlNode* tasks = object->root->at({"spec", "tasks"});
  size_t open = view.path.find("spec.tasks[");
  if (plugins == nullptr || tasks == nullptr || !tasks->isSeq() || open != 0) return;
  auto index = parseUint(view.path.substr(11, view.path.find(']') - 11));
  if (!index || *index >= tasks->items.size()) return;
  auto taskName = [](const YamlNode& task) { return task.get("name") ? task.get("name")->text() : ""; };
  std::string task = taskName(tasks->items[*index]);
  std::map<std::string, std::string> env;
  if (plugins->get("env") != nullptr) env["VC_TASK_INDEX"] = env["VK_TASK_INDEX"] = "";
  if (const YamlNode* torch = plugins->get("pytorch")) {
    std::string master = volcanoFlag(torch, "master", "master");
    std::string worker = volcanoFlag(torch, "worker", "worker");
    long world = 0;
    for (const YamlNode& item : tasks->items)
      if (taskName(item) == master || taskName(item) == worker)
        world += item.get("replicas") ? parseQuantityCount(item.get("replicas")->text()) : 0;
    if (task == master || task == worker) {
      env["MASTER_ADDR"] = object->name + "-" + master + "-0." + object->name;
      env["MASTER_PORT"] = volcanoFlag(torch, "port", "23456");
      env["WORLD_SIZE"] = std::to_string(world);
      env["RANK"] = task == master ? "0" : "";
    }
  }
  for (ContainerFacts& container : pod.containers)
    if (!container.init)
      for (const auto& [name, value] : env) container.env.emplace(name, value);
}

// kubeflow.org/v1alpha1 MPIJob: one spec.template runs as the launcher (its
// GPU limits removed) and as every worker, and with `gpus` or
// `processingUnits` instead of `replicas` the operator writes each worker's
// share into the first container's limit (mpi-operator's v1alpha1
// allocateProcessingUnits and newWorker): the total when it is under the
// per-node count, the per-node count otherwise. The per-node count comes from
// the spec or the operator's own flag; only the spec's is known here.
void addMpiJobV1alpha1Gpus(const PodSpecView& view, PodFacts& pod) {
  const Object* object = view.object;
  if (object == nullptr || object->kind != "MPIJob" || object->api_version != "kubeflow.org/v1alpha1" ||
      view.path != "spec.template.spec")
    return;
  const YamlNode& spec = *object->root->get("spec");
  const YamlNode* type = spec.get("processingResourceType");
  std::string resource = type != nullptr ? type->text() : "nvidia.com/gpu";
  if (resource != "nvidia.com/gpu") return;
  long total = 0, per_node = 0;
  for (const auto& [total_key, node_key] :
       {std::pair{"gpus", "gpusPerNode"}, std::pair{"processingUnits", "processingUnitsPerNode"}})
    if (const YamlNode* given = spec.get(total_key)) {
      total = parseQuantityCount(given->text());
      if (const YamlNode* node = spec.get(node_key)) per_node = parseQuantityCount(node->text());
    }
  if (total <= 0 || per_node <= 0) return;
  for (ContainerFacts& container : pod.containers)
    if (!container.init) {
      container.limits.emplace(resource, std::to_string(std::min(total, per_node)));
      break;
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
        pod.containers.push_back(containerFacts(
            list->items[i], (view.path.empty() ? "" : view.path + ".") + key + "[" + std::to_string(i) + "]",
            std::string(key) == "initContainers"));
  }
  addVolcanoPluginEnv(view, pod);
  addMpiJobV1alpha1Gpus(view, pod);
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
  if (const YamlNode* claims = spec.get("resourceClaims"); claims && claims->isSeq())
    for (const YamlNode& item : claims->items) {
      PodClaim claim;
      claim.name = item.get("name") ? item.get("name")->text() : "";
      claim.line = item.line;
      if (const YamlNode* source = item.get("resourceClaimTemplateName"))
        claim.source = "ResourceClaimTemplate " + source->text();
      else if (const YamlNode* claim_name = item.get("resourceClaimName"))
        claim.source = "ResourceClaim " + claim_name->text();
      pod.claims.push_back(claim);
    }
  if (view.metadata != nullptr) {
    if (const YamlNode* multus = view.metadata->at({"annotations", "k8s.v1.cni.cncf.io/networks"}))
      readMultus(multus->text(), pod);
    if (const YamlNode* gke = view.metadata->at({"annotations", "networking.gke.io/interfaces"}))
      readGkeInterfaces(gke->text(), pod);
  }
  for (const ContainerFacts& container : pod.containers)
    pod.gpudirect_tcpx = pod.gpudirect_tcpx || containerMentionsTcpx(container);
  // An MPIJob worker's NCCL settings usually live in its launcher's mpirun.
  if (!pod.gpudirect_tcpx && view.role == "Worker" && view.object != nullptr)
    forEachPodSpec(*view.object, [&](const PodSpecView& other) {
      if (other.role != "Launcher") return;
      for (const char* key : {"initContainers", "containers"})
        if (const YamlNode* list = other.spec->get(key); list && list->isSeq())
          for (const YamlNode& item : list->items)
            if (item.isMap() && containerMentionsTcpx(containerFacts(item, "", false)))
              pod.gpudirect_tcpx = true;
    });
  // Without GKE's multi-network annotation a TCPX(O) pod's NICs are added at
  // admission (GKE's TCPXO injection or a webhook): their names are unknown here.
  bool gke_networks =
      view.metadata != nullptr && view.metadata->at({"annotations", "networking.gke.io/interfaces"});
  if (pod.gpudirect_tcpx && !gke_networks) pod.interfaces_known = false;
  pod.memlock_platform = memlockPlatform(view, pod.containers);
  return pod;
}

namespace {
// What each of the pod's claims gives, from the claims the input declares.
void resolveClaims(const DraCatalog& catalog, PodFacts& pod) {
  for (PodClaim& claim : pod.claims) {
    const std::string kTemplate = "ResourceClaimTemplate ", kClaim = "ResourceClaim ";
    const std::map<std::string, DraDevices>* table = nullptr;
    std::string name;
    if (claim.source.rfind(kTemplate, 0) == 0) {
      table = &catalog.templates;
      name = claim.source.substr(kTemplate.size());
    } else if (claim.source.rfind(kClaim, 0) == 0) {
      table = &catalog.claims;
      name = claim.source.substr(kClaim.size());
    }
    auto it = table ? table->find(name) : std::map<std::string, DraDevices>::const_iterator{};
    claim.resolved = table != nullptr && it != table->end();
    if (claim.resolved) claim.devices = it->second;
    // Unknown devices may be a NIC: their interface names are not known.
    claim.devices.interfaces_known = claim.devices.interfaces_known && claim.resolved;
    pod.dra.merge(claim.devices);
  }
}
}  // namespace

std::vector<PodFacts> allPods(const LintInput& input) {
  std::vector<PodFacts> pods;
  for (const auto& manifest : input.manifests)
    for (const Object& object : manifest->objects)
      forEachPodSpec(object, [&](const PodSpecView& view) {
        pods.push_back(podFacts(view));
        resolveClaims(input.dra, pods.back());
      });
  return pods;
}

bool isExtendedResource(const std::string& name) {
  return name.find('/') != std::string::npos && name.rfind("kubernetes.io/", 0) != 0;
}

bool isGpuResource(const std::string& name) {
  // NVIDIA's device plugin (whole GPUs, time-sliced `.shared` ones, MIG
  // slices under the mixed strategy), AMD's, and Intel's (i915 and xe drivers).
  return name == "nvidia.com/gpu" || name == "nvidia.com/gpu.shared" ||
         name.rfind("nvidia.com/mig-", 0) == 0 || name == "amd.com/gpu" || name == "gpu.intel.com/i915" ||
         name == "gpu.intel.com/xe";
}

long gpuCount(const ContainerFacts& container) {
  long count = 0;
  for (const auto* list : {&container.limits, &container.requests}) {
    for (const auto& [name, value] : *list)
      if (isGpuResource(name)) count = std::max(count, parseQuantityCount(value));
  }
  return count;
}

long deviceGpuCount(const PodFacts& pod, const ContainerFacts& container) {
  long count = gpuCount(container);
  for (const PodClaim& claim : pod.claims)
    if (std::find(container.claims.begin(), container.claims.end(), claim.name) != container.claims.end())
      count += claim.devices.gpus;
  return count;
}

long gpuCount(const PodFacts& pod, const ContainerFacts& container) {
  long count = gpuCount(container);
  for (const PodClaim& claim : pod.claims) {
    if (std::find(container.claims.begin(), container.claims.end(), claim.name) == container.claims.end())
      continue;
    count += claim.devices.gpus;
    // A listed claim lint cannot place may hold GPUs (dranet examples claim
    // GPU and NIC together in a template kept in another file): one, at
    // least, so that a launcher starting NCCL still makes it an NCCL rank.
    bool placed = claim.resolved && claim.devices.unknown_classes.empty();
    if (!placed && claim.devices.gpus == 0) count += 1;
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

// Whether the container lists a claim that gives an RDMA device.
bool listsRdmaClaim(const PodFacts& pod, const ContainerFacts& container) {
  for (const PodClaim& claim : pod.claims)
    if (claim.devices.rdma &&
        std::find(container.claims.begin(), container.claims.end(), claim.name) != container.claims.end())
      return true;
  return false;
}
}  // namespace

bool usesRdma(const LintInput& input, const PodFacts& pod, const ContainerFacts& container) {
  if (requestsRdma(input, container)) return true;
  bool gpus = gpuCount(pod, container) > 0;
  // A claimed RDMA device (dranet RDMA NIC, GKE mrdma, EFA) serves the
  // containers that list it, and the GPU ones: a NIC moved into the pod is
  // every container's, whether or not it lists the claim.
  if (pod.dra.rdma && (gpus || listsRdmaClaim(pod, container))) return true;
  // TCPX/TCPXO NICs are plain TCP to NCCL's FasTrak plugin: not RDMA.
  if (gpus && (pod.dra.nic_maybe_rdma || (!pod.interfaces.empty() && !pod.gpudirect_tcpx))) return true;
  return gpus && hasNcclIbVars(container);
}

namespace {
// NCCL_ variables or nccl-tests say NCCL; torchrun only with GPUs, since a
// CPU-only torchrun job uses the gloo backend.
bool runsNccl(const PodFacts& pod, const ContainerFacts& container) {
  for (const auto& [name, value] : container.env)
    if (name.rfind("NCCL_", 0) == 0) return true;
  const std::string& command = container.command;
  if (command.find("_perf") != std::string::npos) return true;
  return gpuCount(pod, container) > 0 && command.find("torchrun") != std::string::npos;
}

// What a launcher's text says about its ranks, which run on GPU workers.
bool launcherMentionsNccl(const ContainerFacts& launcher) {
  for (const auto& [name, value] : launcher.env)
    if (name.rfind("NCCL_", 0) == 0) return true;
  const std::string& command = launcher.command;
  return command.find("_perf") != std::string::npos || command.find("torchrun") != std::string::npos ||
         command.find("-x NCCL_") != std::string::npos;
}

// The ranks mpirun starts run in the workers, with the variables it forwards
// (-x NCCL_...), so a worker with GPUs is an NCCL process when its launcher
// starts NCCL even though the worker's own spec says nothing about it.
bool launcherStartsNccl(const PodFacts& worker) {
  if (worker.view.role != "Worker" || worker.view.object == nullptr) return false;
  bool nccl = false;
  forEachPodSpec(*worker.view.object, [&](const PodSpecView& view) {
    if (nccl || view.role != "Launcher") return;
    for (const ContainerFacts& launcher : podFacts(view).containers)
      if (!launcher.init && launcherMentionsNccl(launcher)) nccl = true;
  });
  return nccl;
}
}  // namespace

bool namesNccl(const PodFacts& pod, const ContainerFacts& container) {
  return !container.init && (runsNccl(pod, container) || launcherStartsNccl(pod));
}

bool startsMpiRanks(const ContainerFacts& container) {
  const std::string& command = container.command;
  for (std::string_view launcher : {"mpirun", "mpiexec", "horovodrun"})
    for (size_t at = command.find(launcher); at != std::string::npos; at = command.find(launcher, at + 1)) {
      // A word of its own or a path's last part (/usr/bin/mpirun,
      // mpiexec.hydra), not part of a longer name (mpirun_wrapper.sh).
      char before = at == 0 ? ' ' : command[at - 1];
      size_t end = at + launcher.size();
      char after = end == command.size() ? ' ' : command[end];
      bool starts =
          std::isspace(static_cast<unsigned char>(before)) || std::strchr("/;&|(\"'`", before) != nullptr;
      bool ends = !std::isalnum(static_cast<unsigned char>(after)) && after != '_' && after != '-';
      if (starts && ends) return true;
    }
  return false;
}

bool isNcclWorkload(const LintInput& input, const PodFacts& pod, const ContainerFacts& container) {
  if (container.init) return false;
  // GPUs from the device plugin or, with DRA, from the claims it lists.
  bool gpus = gpuCount(pod, container) > 0;
  if (gpus && usesRdma(input, pod, container)) return true;
  if (runsNccl(pod, container)) return true;
  return gpus && launcherStartsNccl(pod);
}

bool isPureLauncher(const LintInput& input, const PodFacts& pod, const ContainerFacts& container) {
  if (pod.view.role != "Launcher") return false;
  if (const YamlNode* as_worker = pod.view.object->root->at({"spec", "runLauncherAsWorker"}))
    if (as_worker->text() == "true") return false;
  return gpuCount(pod, container) == 0 && !requestsRdma(input, container) && !pod.dra.nic && !pod.dra.rdma;
}

}  // namespace railkit::k8s
