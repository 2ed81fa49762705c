#include "pod_model.h"

#include <charconv>

namespace railkit::podrun {
namespace {

using k8s::YamlNode;

Result<std::vector<std::string>> strings(const YamlNode* node, const std::string& where) {
  std::vector<std::string> out;
  if (node == nullptr || node->type == YamlNode::Type::kNull) return out;
  if (!node->isSeq()) return makeError(ErrorCode::kInvalidInput, where + ": expected a list of strings");
  for (const YamlNode& item : node->items) {
    if (!item.isScalar()) return makeError(ErrorCode::kInvalidInput, where + ": expected a list of strings");
    out.push_back(item.value);
  }
  return out;
}

std::map<std::string, std::string> stringMap(const YamlNode* node) {
  std::map<std::string, std::string> out;
  if (node == nullptr || !node->isMap()) return out;
  for (const auto& [key, value] : node->entries) out[key] = value.text();
  return out;
}

Result<EnvVar> parseEnvVar(const YamlNode& item, const std::string& where) {
  EnvVar var;
  if (const YamlNode* name = item.get("name")) var.name = name->text();
  if (var.name.empty()) return makeError(ErrorCode::kInvalidInput, where + ": env entry without a name");
  const YamlNode* from = item.get("valueFrom");
  if (from == nullptr) {
    var.value = item.get("value") ? item.get("value")->text() : "";
    return var;
  }
  auto ref = [&](const char* kind, EnvVar::From type) -> const YamlNode* {
    const YamlNode* node = from->get(kind);
    if (node == nullptr) return nullptr;
    var.from = type;
    if (const YamlNode* n = node->get("name")) var.ref_name = n->text();
    if (const YamlNode* k = node->get("key")) var.ref_key = k->text();
    if (const YamlNode* o = node->get("optional")) var.optional = o->text() == "true";
    return node;
  };
  if (const YamlNode* field = from->get("fieldRef")) {
    var.from = EnvVar::From::kField;
    var.field_path = field->get("fieldPath") ? field->get("fieldPath")->text() : "";
  } else if (const YamlNode* resource = from->get("resourceFieldRef")) {
    var.from = EnvVar::From::kResourceField;
    var.field_path = resource->get("resource") ? resource->get("resource")->text() : "";
  } else if (ref("secretKeyRef", EnvVar::From::kSecret) == nullptr &&
             ref("configMapKeyRef", EnvVar::From::kConfigMap) == nullptr) {
    return makeError(ErrorCode::kInvalidInput,
                     where + ": env " + var.name + ": valueFrom of a kind the runner does not know");
  }
  return var;
}

// A user or group id (runAsUser, runAsGroup): 0 to 2^31-1, as the API takes.
Result<long> idField(const YamlNode* node, long fallback, const std::string& where) {
  if (node == nullptr || node->type == YamlNode::Type::kNull) return fallback;
  long value = 0;
  const std::string& text = node->text();
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < 0 || value > 2147483647L)
    return makeError(ErrorCode::kInvalidInput, where + ": expected a user or group id, found '" + text + "'");
  return value;
}

Result<Container> parseContainer(const YamlNode& node, const std::string& where) {
  Container container;
  if (const YamlNode* name = node.get("name")) container.name = name->text();
  std::string here = where + "[" + container.name + "]";
  auto command = strings(node.get("command"), here + ".command");
  if (!command) return tl::unexpected(command.error());
  auto args = strings(node.get("args"), here + ".args");
  if (!args) return tl::unexpected(args.error());
  container.command = *command;
  container.args = *args;
  if (const YamlNode* env = node.get("env"); env != nullptr && env->isSeq()) {
    for (const YamlNode& item : env->items) {
      auto var = parseEnvVar(item, here);
      if (!var) return tl::unexpected(var.error());
      container.env.push_back(*var);
    }
  }
  if (const YamlNode* env_from = node.get("envFrom"); env_from != nullptr && env_from->isSeq()) {
    for (const YamlNode& item : env_from->items) {
      EnvFrom from;
      from.prefix = item.get("prefix") ? item.get("prefix")->text() : "";
      const YamlNode* ref = item.get("secretRef");
      from.secret = ref != nullptr;
      if (ref == nullptr) ref = item.get("configMapRef");
      if (ref == nullptr || ref->get("name") == nullptr)
        return makeError(ErrorCode::kInvalidInput, here + ": envFrom without secretRef/configMapRef name");
      from.name = ref->get("name")->text();
      container.env_from.push_back(from);
    }
  }
  if (const YamlNode* mounts = node.get("volumeMounts"); mounts != nullptr && mounts->isSeq()) {
    for (const YamlNode& item : mounts->items) {
      VolumeMount mount;
      mount.name = item.get("name") ? item.get("name")->text() : "";
      mount.mount_path = item.get("mountPath") ? item.get("mountPath")->text() : "";
      mount.sub_path = item.get("subPath") ? item.get("subPath")->text() : "";
      mount.read_only = item.get("readOnly") && item.get("readOnly")->text() == "true";
      container.mounts.push_back(mount);
    }
  }
  container.native_sidecar = node.get("restartPolicy") && node.get("restartPolicy")->text() == "Always";
  if (const YamlNode* image = node.get("image")) container.image = image->text();
  if (const YamlNode* security = node.get("securityContext")) {
    auto user = idField(security->get("runAsUser"), -1, here + ".securityContext.runAsUser");
    if (!user) return tl::unexpected(user.error());
    // The runtime runs a container with runAsUser alone in group 0.
    auto group =
        idField(security->get("runAsGroup"), *user >= 0 ? 0 : -1, here + ".securityContext.runAsGroup");
    if (!group) return tl::unexpected(group.error());
    container.run_as_user = *user;
    container.run_as_group = *group;
    container.read_only_root =
        security->get("readOnlyRootFilesystem") && security->get("readOnlyRootFilesystem")->text() == "true";
  }
  return container;
}

Result<int> modeField(const YamlNode* node, int fallback) {
  if (node == nullptr) return fallback;
  // YAML 1.1 octal (0644) or decimal (420), as the API server reads it.
  const std::string& text = node->text();
  int value = 0;
  int base = text.size() > 1 && text[0] == '0' ? 8 : 10;
  auto [end, ec] = std::from_chars(text.data() + (base == 8 ? 1 : 0), text.data() + text.size(), value, base);
  if (ec != std::errc() || end != text.data() + text.size() || value < 0 || value > 0777)
    return makeError(ErrorCode::kInvalidInput, "file mode '" + text + "' is not 0..0777");
  return value;
}

Result<Volume> parseVolume(const YamlNode& node, const std::string& where) {
  Volume volume;
  volume.name = node.get("name") ? node.get("name")->text() : "";
  const YamlNode* source = node.get("secret");
  if (source != nullptr) {
    volume.kind = Volume::Kind::kSecret;
    volume.source = source->get("secretName") ? source->get("secretName")->text() : "";
  } else if ((source = node.get("configMap")) != nullptr) {
    volume.kind = Volume::Kind::kConfigMap;
    volume.source = source->get("name") ? source->get("name")->text() : "";
  } else if (node.get("emptyDir") != nullptr) {
    volume.kind = Volume::Kind::kEmptyDir;
  } else if (const YamlNode* host = node.at({"hostPath", "path"}); host != nullptr) {
    volume.kind = Volume::Kind::kHostPath;
    volume.source = host->text();
    return volume;
  }
  if (source == nullptr) return volume;
  auto mode = modeField(source->get("defaultMode"), 0644);
  if (!mode) return tl::unexpected(mode.error().withContext(where + ": volume " + volume.name));
  volume.default_mode = *mode;
  if (const YamlNode* items = source->get("items"); items != nullptr && items->isSeq()) {
    for (const YamlNode& item : items->items) {
      KeyToPath entry{item.get("key") ? item.get("key")->text() : "",
                      item.get("path") ? item.get("path")->text() : "", -1};
      auto item_mode = modeField(item.get("mode"), -1);
      if (!item_mode) return tl::unexpected(item_mode.error().withContext(where + ": volume " + volume.name));
      entry.mode = *item_mode;
      volume.items.push_back(entry);
    }
  }
  return volume;
}

}  // namespace

Result<long> intField(const YamlNode* node, long fallback, const std::string& where) {
  if (node == nullptr || node->type == YamlNode::Type::kNull) return fallback;
  long value = 0;
  const std::string& text = node->text();
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < 0 || value > 10000)
    return makeError(ErrorCode::kInvalidInput,
                     where + ": expected a whole number 0..10000, found '" + text + "'");
  return value;
}

Result<PodTemplate> parsePodTemplate(const YamlNode& tmpl, const std::string& where) {
  PodTemplate pod;
  const YamlNode* spec = tmpl.get("containers") != nullptr ? &tmpl : tmpl.get("spec");
  if (spec == nullptr || spec->get("containers") == nullptr || !spec->get("containers")->isSeq())
    return makeError(ErrorCode::kInvalidInput, where + ": pod template without spec.containers");
  pod.labels = stringMap(tmpl.at({"metadata", "labels"}));
  pod.annotations = stringMap(tmpl.at({"metadata", "annotations"}));
  for (const YamlNode& item : spec->get("containers")->items) {
    auto container = parseContainer(item, where + ".containers");
    if (!container) return tl::unexpected(container.error());
    pod.containers.push_back(std::move(*container));
  }
  if (const YamlNode* init = spec->get("initContainers"); init != nullptr && init->isSeq()) {
    for (const YamlNode& item : init->items) {
      auto container = parseContainer(item, where + ".initContainers");
      if (!container) return tl::unexpected(container.error());
      pod.init_containers.push_back(std::move(*container));
    }
  }
  if (const YamlNode* volumes = spec->get("volumes"); volumes != nullptr && volumes->isSeq()) {
    for (const YamlNode& item : volumes->items) {
      auto volume = parseVolume(item, where);
      if (!volume) return tl::unexpected(volume.error());
      pod.volumes.push_back(std::move(*volume));
    }
  }
  pod.host_network = spec->get("hostNetwork") && spec->get("hostNetwork")->text() == "true";
  pod.hostname = spec->get("hostname") ? spec->get("hostname")->text() : "";
  pod.subdomain = spec->get("subdomain") ? spec->get("subdomain")->text() : "";
  auto searches = strings(spec->at({"dnsConfig", "searches"}), where + ".dnsConfig.searches");
  if (!searches) return tl::unexpected(searches.error());
  pod.dns_searches = *searches;
  if (const YamlNode* claims = spec->get("resourceClaims"); claims != nullptr && claims->isSeq()) {
    for (const YamlNode& claim : claims->items) {
      std::string name = claim.get("name") ? claim.get("name")->text() : "";
      std::string source = claim.get("resourceClaimTemplateName")
                               ? claim.get("resourceClaimTemplateName")->text()
                           : claim.get("resourceClaimName") ? claim.get("resourceClaimName")->text()
                                                            : "";
      pod.claims[name] = source;
    }
  }
  return pod;
}

void upsertEnv(std::vector<EnvVar>& env, EnvVar var) {
  for (EnvVar& existing : env) {
    if (existing.name == var.name) {
      existing = std::move(var);
      return;
    }
  }
  env.push_back(std::move(var));
}

EnvVar literalEnv(const std::string& name, const std::string& value) {
  EnvVar var;
  var.name = name;
  var.value = value;
  return var;
}

EnvVar fieldEnv(const std::string& name, const std::string& field_path) {
  EnvVar var;
  var.name = name;
  var.from = EnvVar::From::kField;
  var.field_path = field_path;
  return var;
}

}  // namespace railkit::podrun
