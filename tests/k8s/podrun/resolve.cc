#include "resolve.h"

#include <algorithm>

#include "network.h"

namespace railkit::podrun {
namespace {

using EnvList = std::vector<std::pair<std::string, std::string>>;

const DataObject* findData(const std::vector<DataObject>& data, const std::string& kind,
                           const std::string& ns, const std::string& name) {
  for (const DataObject& object : data)
    if (object.kind == kind && object.ns == ns && object.name == name) return &object;
  return nullptr;
}

// metadata.labels['k'] / metadata.annotations['k'] -> the map's value ("" when absent).
bool mapField(const std::string& path, const std::string& prefix,
              const std::map<std::string, std::string>& map, std::string& value) {
  if (path.rfind(prefix + "['", 0) != 0 || path.size() < prefix.size() + 4 ||
      path.substr(path.size() - 2) != "']")
    return false;
  auto found = map.find(path.substr(prefix.size() + 2, path.size() - prefix.size() - 4));
  value = found == map.end() ? "" : found->second;
  return true;
}

Result<std::string> downwardField(const ResolvedPod& pod, const std::string& path) {
  std::string value;
  if (path == "metadata.name") return pod.pod.name;
  if (path == "metadata.namespace") return pod.pod.ns;
  if (path == "metadata.uid")
    return "00000000-0000-4000-8000-" + std::string(12 - std::to_string(pod.node).size(), '0') +
           std::to_string(pod.node);
  if (path == "spec.nodeName") return "podrun-node-" + std::to_string(pod.node);
  if (path == "spec.serviceAccountName") return std::string("default");
  if (path == "status.podIP" || path == "status.podIPs" || path == "status.hostIP" ||
      path == "status.hostIPs")
    return pod.ip;
  if (mapField(path, "metadata.labels", pod.pod.spec.labels, value)) return value;
  if (mapField(path, "metadata.annotations", pod.pod.spec.annotations, value)) return value;
  return makeError(ErrorCode::kInvalidInput, "fieldRef " + path + " is not a field the downward API offers");
}

Result<EnvList> resolveEnv(const ResolvedPod& pod, const Container& container,
                           const std::vector<DataObject>& data) {
  EnvList env;
  auto set = [&env](const std::string& name, const std::string& value) {
    for (auto& entry : env)
      if (entry.first == name) {
        entry.second = value;
        return;
      }
    env.emplace_back(name, value);
  };
  std::string where = "pod " + pod.pod.name + " container " + container.name;
  for (const EnvFrom& from : container.env_from) {
    const DataObject* object = findData(data, from.secret ? "Secret" : "ConfigMap", pod.pod.ns, from.name);
    if (object == nullptr)
      return makeError(ErrorCode::kNotFound,
                       where + ": envFrom " + from.name +
                           " is not in the manifest "
                           "(the kubelet would not start it: CreateContainerConfigError)");
    for (const auto& [key, value] : object->data) set(from.prefix + key, value);
  }
  for (const EnvVar& var : container.env) {
    switch (var.from) {
      case EnvVar::From::kValue: set(var.name, expandVars(var.value, env)); break;
      case EnvVar::From::kField: {
        auto value = downwardField(pod, var.field_path);
        if (!value) return tl::unexpected(value.error().withContext(where + ": env " + var.name));
        set(var.name, *value);
        break;
      }
      case EnvVar::From::kSecret:
      case EnvVar::From::kConfigMap: {
        std::string kind = var.from == EnvVar::From::kSecret ? "Secret" : "ConfigMap";
        const DataObject* object = findData(data, kind, pod.pod.ns, var.ref_name);
        auto found =
            object ? object->data.find(var.ref_key) : std::map<std::string, std::string>::const_iterator{};
        if (object == nullptr || found == object->data.end()) {
          if (var.optional) break;
          return makeError(ErrorCode::kNotFound, where + ": env " + var.name + ": " + kind + " " +
                                                     var.ref_name + " key " + var.ref_key +
                                                     " is not in the manifest (the kubelet "
                                                     "would not start it: CreateContainerConfigError)");
        }
        set(var.name, found->second);
        break;
      }
      case EnvVar::From::kResourceField:
        return makeError(ErrorCode::kInvalidInput,
                         where + ": env " + var.name + ": resourceFieldRef is not simulated");
    }
  }
  return env;
}

Status mountVolumes(const ResolvedPod& pod, const Container& container, const std::vector<DataObject>& data,
                    ResolvedContainer& out) {
  std::string where = "pod " + pod.pod.name + " container " + container.name;
  for (const VolumeMount& mount : container.mounts) {
    const Volume* volume = nullptr;
    for (const Volume& candidate : pod.pod.spec.volumes)
      if (candidate.name == mount.name) volume = &candidate;
    if (volume == nullptr)
      return makeError(ErrorCode::kInvalidInput, where + ": volumeMount " + mount.name + " names no volume");
    if (volume->kind == Volume::Kind::kHostPath) {
      if (!mount.sub_path.empty())
        return makeError(ErrorCode::kInvalidInput,
                         where + ": volumeMount " + mount.name + ": subPath of a hostPath is not simulated");
      out.host_mounts.push_back({volume->source, mount.mount_path, mount.read_only});
      continue;
    }
    if (volume->kind == Volume::Kind::kEmptyDir || volume->kind == Volume::Kind::kOther) {
      if (volume->kind == Volume::Kind::kEmptyDir && mount.mount_path != "/dev/shm")
        out.pod_volumes.push_back({volume->name, mount.mount_path, mount.read_only});
      continue;
    }
    std::string kind = volume->kind == Volume::Kind::kSecret ? "Secret" : "ConfigMap";
    const DataObject* object = findData(data, kind, pod.pod.ns, volume->source);
    if (object == nullptr)
      return makeError(ErrorCode::kNotFound,
                       where + ": volume " + volume->name + ": " + kind + " " + volume->source +
                           " is neither in the manifest nor made by a controller (the pod would "
                           "stay in ContainerCreating)");
    std::vector<KeyToPath> items = volume->items;
    if (items.empty())
      for (const auto& [key, value] : object->data) items.push_back({key, key, -1});
    if (mount.sub_path.empty()) out.dirs.push_back({mount.mount_path, 0777, true});
    for (const KeyToPath& item : items) {
      auto found = object->data.find(item.key);
      if (found == object->data.end())
        return makeError(ErrorCode::kNotFound, where + ": volume " + volume->name + ": key " + item.key +
                                                   " is not in " + kind + " " + volume->source);
      int mode = item.mode >= 0 ? item.mode : volume->default_mode;
      if (!mount.sub_path.empty()) {
        if (item.path == mount.sub_path) out.files.push_back({mount.mount_path, found->second, mode});
        continue;
      }
      out.files.push_back({mount.mount_path + "/" + item.path, found->second, mode});
    }
  }
  return {};
}

Result<ResolvedContainer> resolveContainer(const ResolvedPod& pod, const Container& container,
                                           const std::string& kind, const std::vector<DataObject>& data) {
  ResolvedContainer out;
  out.name = container.name;
  out.kind = kind;
  out.image = container.image;
  out.run_as_user = container.run_as_user;
  out.run_as_group = container.run_as_group;
  out.read_only_root = container.read_only_root;
  auto env = resolveEnv(pod, container, data);
  if (!env) return tl::unexpected(env.error());
  out.env = *env;
  if (container.command.empty())
    return makeError(ErrorCode::kInvalidInput,
                     "pod " + pod.pod.name + " container " + container.name +
                         ": no command: the image's entrypoint is unknown to the runner");
  for (const std::string& arg : container.command) out.argv.push_back(expandVars(arg, out.env));
  for (const std::string& arg : container.args) out.argv.push_back(expandVars(arg, out.env));
  auto mounted = mountVolumes(pod, container, data, out);
  if (!mounted) return tl::unexpected(mounted.error());
  return out;
}

}  // namespace

std::string expandVars(const std::string& text, const EnvList& env) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '$' || i + 1 >= text.size()) {
      out += text[i];
      continue;
    }
    if (text[i + 1] == '$') {
      out += '$';
      ++i;
      continue;
    }
    size_t close = text[i + 1] == '(' ? text.find(')', i + 2) : std::string::npos;
    if (close == std::string::npos) {
      out += text[i];
      continue;
    }
    std::string name = text.substr(i + 2, close - i - 2);
    const std::string* value = nullptr;
    for (const auto& [key, val] : env)
      if (key == name) value = &val;
    out += value ? *value : text.substr(i, close - i + 1);
    i = close;
  }
  return out;
}

Result<Plan> planManifest(const k8s::Manifest& manifest, const PlanOptions& options) {
  auto expansion = expandControllers(manifest, options.controllers);
  if (!expansion) return tl::unexpected(expansion.error());
  Plan plan;
  plan.report_pod = expansion->report_pod;
  plan.notes = expansion->notes;
  int node = 0;
  SpiderpoolIpam ipam(manifest);
  for (PlannedPod& planned : expansion->pods) {
    ResolvedPod pod;
    pod.pod = std::move(planned);
    pod.node = ++node;
    pod.ip = options.ctrl_net + "." + std::to_string(node + 10);
    pod.netifs.push_back({"eth0", pod.ip + "/24", false, {}});
    auto data_ifs = dataInterfaces(pod.pod, manifest, plan.notes);
    if (!data_ifs) return tl::unexpected(data_ifs.error());
    auto networks = multusNetworks(pod.pod);
    if (!networks) return tl::unexpected(networks.error());
    int rail = 0;
    for (const std::string& name : *data_ifs) {
      size_t dot = options.data_net.rfind('.');
      std::string net = options.data_net.substr(0, dot + 1) +
                        std::to_string(std::stoi(options.data_net.substr(dot + 1)) + rail);
      NetIf netif{name, net + "." + std::to_string(node + 10) + "/24", true, {}};
      // A Spiderpool network: its pools' address and routes instead.
      if (static_cast<size_t>(rail) < networks->size()) {
        auto lease = ipam.lease((*networks)[rail], node, "pod " + pod.pod.name + " " + name);
        if (!lease) return tl::unexpected(lease.error());
        if (*lease) {
          netif.address = (*lease)->address;
          netif.routes = (*lease)->routes;
          if (!(*lease)->gateway.empty() &&
              std::find(plan.gateways.begin(), plan.gateways.end(), (*lease)->gateway) == plan.gateways.end())
            plan.gateways.push_back((*lease)->gateway);
        }
      }
      ++rail;
      pod.netifs.push_back(std::move(netif));
    }
    plan.pods.push_back(std::move(pod));
  }
  for (ResolvedPod& pod : plan.pods) {
    pod.hosts = hostsFile(pod, plan.pods, options.controllers.cluster_domain);
    for (const Container& c : pod.pod.spec.init_containers) {
      auto resolved = resolveContainer(pod, c, c.native_sidecar ? "sidecar" : "init", expansion->data);
      if (!resolved) return tl::unexpected(resolved.error());
      pod.containers.push_back(std::move(*resolved));
    }
    for (const Container& c : pod.pod.spec.containers) {
      auto resolved = resolveContainer(pod, c, "main", expansion->data);
      if (!resolved) return tl::unexpected(resolved.error());
      pod.containers.push_back(std::move(*resolved));
    }
  }
  return plan;
}

}  // namespace railkit::podrun
