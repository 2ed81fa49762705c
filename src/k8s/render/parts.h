#pragma once
// Internal to render: what an exposure mode adds to the worker pods, and the
// builders modes and launchers share.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "k8s/render/render.h"

namespace railkit::k8s::render {

using nlohmann::json;

struct PodDecoration {
  json annotations = json::object();
  json limits = json::object();     // extended resources (requests = limits)
  json pod_claims = json::array();  // spec.resourceClaims
  json container_claims = json::array();
  bool host_network = false;
  json env = json::array();  // NCCL/UCX for the mode
  json extra_containers = json::array();
  // Native sidecars (restartPolicy: Always): they start before the main
  // container and are stopped after it, so a Job's pod still completes.
  // workerPodSpec puts them in spec.initContainers.
  json init_containers = json::array();
  json extra_volumes = json::array();
  json extra_mounts = json::array();  // for the main container
  std::vector<std::string> capabilities = {"IPC_LOCK"};
  std::string pod_comment;
  // The data interfaces as the pod names them (net1.. from Multus, dranet0
  // from a DRA claim, eth1.. on GKE, the host's own names with hostNetwork):
  // what `railkit env --data-if` and `railkit bench --data-if` are given, never
  // the host's names, which the pod does not have.
  std::vector<std::string> pod_data_interfaces;
  // GPUs come from the DRA claim (dra mode, draGpus): the worker must not
  // also request nvidia.com/gpu, or it gets twice the GPUs or never schedules.
  bool gpus_from_dra = false;
  // Shell lines the main container runs before its test command, in the
  // same shell (gke-tcpxo: source the node's nccl-env-profile.sh, then set
  // the pod's own interface names). Launchers prepend them to every command
  // that starts a rank, including ranks mpirun starts over ssh.
  std::vector<std::string> command_prelude;
};

// Where railkit lands in a pod with profile.railkit_image: the emptyDir an
// initContainer fills from the railkit image, mounted read-only in the test
// containers, so the user's NCCL image needs no railkit of its own.
inline constexpr const char* kRailkitVolume = "railkit-bin";
inline constexpr const char* kRailkitMount = "/opt/railkit";
inline constexpr const char* kRailkitInjectedBinary = "/opt/railkit/railkit";
// With profile.railkit_image set, adds that volume, the initContainer that
// fills it and the read-only mount in every container of the pod spec
// `spec`; without it, leaves `spec` as it is.
void injectRailkit(const Profile& profile, json& spec);

// Objects the mode needs next to the job, and what it adds to workers.
Result<std::vector<RenderedObject>> renderMode(const Profile& profile, PodDecoration& decoration);
// The job objects.
Result<std::vector<RenderedObject>> renderLauncher(const Profile& profile, const PodDecoration& decoration);

json envVar(const std::string& name, const std::string& value);
json metadata(const std::string& name, const std::string& ns);
// A worker pod spec (with `command`) decorated for the mode.
// The main container is `container` ("node" for Trainer, whose plugins act
// on that name only).
json workerPodSpec(const Profile& profile, const PodDecoration& decoration, const json& command,
                   const json& extra_env, const std::string& container = "worker");
// The port of rank 0's rendezvous (MASTER_PORT) in every launcher.
inline constexpr const char* kMasterPort = "29500";
// ["/bin/bash", "-c", script]
json bash(const std::string& script);
// A pod template: `spec`, with metadata.annotations when there are any.
json podTemplate(const json& annotations, const json& spec);
// RAILKIT_JOB_TOKEN from the job token Secret.
json tokenEnv(const Profile& profile);
// The SSH key Secret as a volume, mounted read-only in `container`.
void mountSshKeys(const Profile& profile, json& spec, const std::string& container);
// The Volcano Job (launcher volcano-job): master and worker tasks.
RenderedObject volcanoJob(const Profile& profile, const PodDecoration& decoration);

// The Secret holding profile.job_token (key "token"), one per job.
Result<RenderedObject> jobTokenSecret(const Profile& profile);
std::string jobTokenSecretName(const Profile& profile);
// The NCCL/UCX variables workers get (mode env plus debug). Device names
// (NCCL_IB_HCA, NCCL_IB_GID_INDEX, UCX_NET_DEVICES) come from `railkit env`
// in the pod, so the static ones stay out except with hostNetwork, where
// the pod has the host's own devices.
json ncclEnv(const Profile& profile, const PodDecoration& decoration);

}  // namespace railkit::k8s::render
