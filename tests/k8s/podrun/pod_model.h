#pragma once
// The pod runner's model of what a controller stamps out: a pod template read
// from a manifest (containers, env, volumes, networking fields) that the
// controller simulations (controllers.h) copy and amend the way the Job, JobSet,
// Trainer and MPI Operator controllers do, before the kubelet's part
// (resolve.h) turns each pod into argv, env, files and interfaces.

#include <map>
#include <string>
#include <vector>

#include "core/result.h"
#include "k8s/yaml.h"

namespace railkit::podrun {

// One `env` entry: a literal, or a reference the kubelet resolves.
struct EnvVar {
  enum class From { kValue, kField, kSecret, kConfigMap, kResourceField };
  std::string name;
  From from = From::kValue;
  std::string value;       // kValue
  std::string field_path;  // kField, kResourceField (resource)
  std::string ref_name;    // kSecret / kConfigMap object
  std::string ref_key;
  bool optional = false;
};

struct EnvFrom {
  bool secret = false;  // secretRef, else configMapRef
  std::string name;
  std::string prefix;
};

struct VolumeMount {
  std::string name;
  std::string mount_path;
  std::string sub_path;
  bool read_only = false;
};

struct KeyToPath {
  std::string key;
  std::string path;
  int mode = -1;  // -1: the volume's default mode
};

struct Volume {
  enum class Kind { kOther, kSecret, kConfigMap, kEmptyDir, kHostPath };
  std::string name;
  Kind kind = Kind::kOther;
  std::string source;  // Secret / ConfigMap name, or the node's path (hostPath)
  std::vector<KeyToPath> items;
  int default_mode = 0644;
};

struct Container {
  std::string name;
  std::vector<std::string> command;
  std::vector<std::string> args;
  std::vector<EnvVar> env;
  std::vector<EnvFrom> env_from;
  std::vector<VolumeMount> mounts;
  bool native_sidecar = false;  // an initContainer with restartPolicy: Always
  // Which root the runner gives the container: an image it has a tree for
  // (podrun.sh's PR_RAILKIT_IMAGE), or the machine's own Debian.
  std::string image;
  // securityContext: the user it runs as (-1: the image's, root), and a
  // read-only root file system.
  long run_as_user = -1;
  long run_as_group = -1;
  bool read_only_root = false;
};

struct PodTemplate {
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> annotations;
  std::vector<Container> init_containers;
  std::vector<Container> containers;
  std::vector<Volume> volumes;
  bool host_network = false;
  std::string hostname;
  std::string subdomain;
  std::vector<std::string> dns_searches;  // dnsConfig.searches
  // spec.resourceClaims: claim name -> ResourceClaimTemplate (or claim) name.
  std::map<std::string, std::string> claims;
};

// Reads `template` (a map holding metadata and spec) or a bare pod spec.
Result<PodTemplate> parsePodTemplate(const k8s::YamlNode& tmpl, const std::string& where);

// Sets NAME in env to a literal, replacing an entry of that name or adding one
// (Trainer's apply.UpsertEnvVars).
void upsertEnv(std::vector<EnvVar>& env, EnvVar var);
EnvVar literalEnv(const std::string& name, const std::string& value);
EnvVar fieldEnv(const std::string& name, const std::string& field_path);

// Whole number from a scalar, or `fallback` when the node is absent.
Result<long> intField(const k8s::YamlNode* node, long fallback, const std::string& where);

}  // namespace railkit::podrun
