// Launchers: the job objects around the decorated worker pods.
#include <algorithm>

#include "core/strings.h"
#include "k8s/render/launch_scripts.h"
#include "k8s/render/parts.h"

namespace railkit::k8s::render {

json envVar(const std::string& name, const std::string& value) {
  return {{"name", name}, {"value", value}};
}

json metadata(const std::string& name, const std::string& ns) {
  return {{"name", name}, {"namespace", ns}};
}

bool usesEnvBootstrap(const std::string& launcher) {
  return launcher == "indexed-job" || launcher == "jobset" || launcher == "trainjob" ||
         launcher == "volcano-job";
}

// Trainer's mpi policy makes its own keys (like the MPI Operator); a plain
// Indexed Job or JobSet has nobody to do it, nor a Volcano Job without its
// ssh plugin (railkit's own Secret keeps one way of starting sshd).
bool needsSshKeys(const Profile& profile) {
  return (profile.launcher == "indexed-job" || profile.launcher == "jobset" ||
          profile.launcher == "volcano-job") &&
         profile.test.tool == "nccl-tests";
}

std::string jobTokenSecretName(const Profile& profile) {
  return profile.name + "-job-token";
}

// The token travels in a Secret, not in the pod spec: whoever may read the
// Job (kubectl get -o yaml, events, logs of controllers) need not be able to
// join its rendezvous.
Result<RenderedObject> jobTokenSecret(const Profile& profile) {
  const std::string& token = profile.job_token;
  bool printable = std::all_of(token.begin(), token.end(), [](char c) { return c > ' ' && c < 0x7f; });
  if (token.size() < 16 || token.size() > 1024 || !printable) {
    return makeError(ErrorCode::kUsage,
                     "render: the job token must be 16..1024 printable characters without spaces");
  }
  return RenderedObject{"job-token-secret.yaml",
                        "Secret: the job token railkit's rendezvous (bench, validate) checks "
                        "(RAILKIT_JOB_TOKEN in the workers); "
                        "a stranger without it cannot join or stop the job. One per job, random per render.",
                        {{"apiVersion", "v1"},
                         {"kind", "Secret"},
                         {"metadata", metadata(jobTokenSecretName(profile), profile.ns)},
                         {"type", "Opaque"},
                         {"stringData", {{"token", token}}}}};
}

// Pods of an MPI program over indexed pods share one key pair: root's
// identity and authorized_keys. Read-only to the owner; the script copies
// the files into /root/.ssh with the modes ssh insists on.
Result<RenderedObject> sshKeySecret(const Profile& profile) {
  if (profile.ssh_private_key.empty() || profile.ssh_public_key.empty())
    return makeError(ErrorCode::kUsage, "render: an MPI test over " + profile.launcher +
                                            " needs an SSH key pair for its pods (railkit render makes one)");
  return RenderedObject{
      "ssh-secret.yaml",
      "Secret: the SSH key pair the pods of this job share (mpirun from rank 0 to every pod); "
      "one per job, random per render, mounted read-only.",
      {{"apiVersion", "v1"},
       {"kind", "Secret"},
       {"metadata", metadata(sshKeySecretName(profile), profile.ns)},
       {"type", "kubernetes.io/ssh-auth"},
       {"stringData",
        {{"ssh-privatekey", profile.ssh_private_key}, {"ssh-publickey", profile.ssh_public_key}}}}};
}

json ncclEnv(const Profile& profile, const PodDecoration& decoration) {
  json env = json::array();
  for (const auto& item : decoration.env) {
    std::string name = item["name"].get<std::string>();
    bool device_name = name == "NCCL_IB_HCA" || name == "NCCL_IB_GID_INDEX" || name == "UCX_NET_DEVICES";
    if (device_name && !decoration.host_network) continue;
    env.push_back(item);
  }
  env.push_back(envVar("NCCL_DEBUG", "INFO"));
  env.push_back(envVar("NCCL_DEBUG_SUBSYS", "INIT,NET"));
  (void)profile;
  return env;
}

void injectRailkit(const Profile& profile, json& spec) {
  if (profile.railkit_image.empty()) return;
  // The railkit image has no shell (glibc, CA certificates, railkit), so no
  // cp: railkit copies its own executable (install-self writes a temporary
  // file in the directory and renames it, so a reader never sees half of
  // it). It needs nothing but the emptyDir: nobody, no capability, no
  // writable root, and little memory and CPU for one copy.
  json init = {{"name", "railkit-install"},
               {"image", profile.railkit_image},
               {"command", {"/usr/local/bin/railkit", "install-self", kRailkitMount}},
               {"resources",
                {{"requests", {{"cpu", "10m"}, {"memory", "32Mi"}}},
                 {"limits", {{"cpu", "500m"}, {"memory", "64Mi"}}}}},
               {"securityContext",
                {{"runAsNonRoot", true},
                 {"runAsUser", 65534},
                 {"runAsGroup", 65534},
                 {"allowPrivilegeEscalation", false},
                 {"readOnlyRootFilesystem", true},
                 {"capabilities", {{"drop", {"ALL"}}}},
                 {"seccompProfile", {{"type", "RuntimeDefault"}}}}},
               {"volumeMounts", {{{"name", kRailkitVolume}, {"mountPath", kRailkitMount}}}}};
  // First: railkit is in place before a native sidecar or the test starts.
  json inits = json::array({init});
  if (spec.contains("initContainers"))
    for (const auto& item : spec["initContainers"]) inits.push_back(item);
  spec["initContainers"] = inits;
  spec["volumes"].push_back({{"name", kRailkitVolume}, {"emptyDir", {{"sizeLimit", "256Mi"}}}});
  // Read-only: a test container can run the copy, never replace it for the
  // pod's other containers.
  for (auto& container : spec["containers"])
    container["volumeMounts"].push_back(
        {{"name", kRailkitVolume}, {"mountPath", kRailkitMount}, {"readOnly", true}});
}

json workerPodSpec(const Profile& profile, const PodDecoration& decoration, const json& command,
                   const json& extra_env, const std::string& container) {
  json limits = decoration.limits;
  // gpusPerNode 0 (validate of a node without GPUs): no GPU request at all.
  if (!decoration.gpus_from_dra && profile.gpus_per_node > 0)
    limits["nvidia.com/gpu"] = profile.gpus_per_node;
  json env = ncclEnv(profile, decoration);
  for (const auto& item : extra_env) env.push_back(item);
  json mounts = json::array({{{"name", "dshm"}, {"mountPath", "/dev/shm"}}});
  for (const auto& mount : decoration.extra_mounts) mounts.push_back(mount);
  json resources = {{"requests", limits}, {"limits", limits}};
  if (!decoration.container_claims.empty()) resources["claims"] = decoration.container_claims;
  json main = {
      {"name", container},      {"image", profile.image},
      {"command", command},     {"env", env},
      {"resources", resources}, {"securityContext", {{"capabilities", {{"add", decoration.capabilities}}}}},
      {"volumeMounts", mounts}};
  json containers = json::array({main});
  for (const auto& sidecar : decoration.extra_containers) containers.push_back(sidecar);
  json volumes = json::array(
      {{{"name", "dshm"}, {"emptyDir", {{"medium", "Memory"}, {"sizeLimit", profile.shm_size}}}}});
  for (const auto& volume : decoration.extra_volumes) volumes.push_back(volume);
  json spec = {{"containers", containers}, {"volumes", volumes}};
  if (!decoration.init_containers.empty()) spec["initContainers"] = decoration.init_containers;
  if (!decoration.pod_claims.empty()) spec["resourceClaims"] = decoration.pod_claims;
  if (decoration.host_network) {
    spec["hostNetwork"] = true;
    spec["dnsPolicy"] = "ClusterFirstWithHostNet";
  }
  injectRailkit(profile, spec);
  return spec;
}

json podTemplate(const json& annotations, const json& spec) {
  json tmpl = {{"spec", spec}};
  if (!annotations.empty()) tmpl["metadata"] = {{"annotations", annotations}};
  return tmpl;
}

json bash(const std::string& script) {
  return json::array({"/bin/bash", "-c", script});
}

json tokenEnv(const Profile& profile) {
  return {{"name", "RAILKIT_JOB_TOKEN"},
          {"valueFrom", {{"secretKeyRef", {{"name", jobTokenSecretName(profile)}, {"key", "token"}}}}}};
}

void mountSshKeys(const Profile& profile, json& spec, const std::string& container) {
  spec["volumes"].push_back(
      {{"name", "ssh-keys"}, {"secret", {{"secretName", sshKeySecretName(profile)}, {"defaultMode", 0400}}}});
  for (auto& item : spec["containers"])
    if (item["name"] == container)
      item["volumeMounts"].push_back({{"name", "ssh-keys"}, {"mountPath", kSshKeyMount}, {"readOnly", true}});
}

namespace {

// Env bootstrap for Indexed Jobs: rank from the completion index.
json indexedEnv(const Profile& profile, const std::string& master) {
  return json::array(
      {{{"name", "RANK"},
        {"valueFrom",
         {{"fieldRef",
           {{"fieldPath", "metadata.annotations['batch.kubernetes.io/job-completion-index']"}}}}}},
       envVar("WORLD_SIZE", std::to_string(profile.nodes)),
       envVar("MASTER_ADDR", master),
       envVar("MASTER_PORT", kMasterPort),
       tokenEnv(profile)});
}

// What an indexed pod runs: `host_of_rank` is rank i's DNS name with "{i}".
std::string indexedScript(const Profile& profile, const PodDecoration& decoration, const PodNetwork& net,
                          const std::string& host_of_rank) {
  std::string master = host_of_rank;
  master.replace(master.find("{i}"), 3, "0");
  if (profile.test.tool == "railkit" || profile.test.tool == "validate")
    return indexedBenchScript(profile, net);
  if (profile.test.tool == "perftest") return indexedPerftestScript(profile, net, master);
  std::vector<std::string> forward;
  for (const auto& item : ncclEnv(profile, decoration)) forward.push_back(item["name"].get<std::string>());
  return indexedMpiScript(profile, net, host_of_rank, forward);
}

json indexedJobSpec(const Profile& profile, const PodDecoration& decoration, const std::string& service,
                    const std::string& host_of_rank) {
  PodNetwork net = podNetwork(profile, decoration);
  std::string master = host_of_rank;
  master.replace(master.find("{i}"), 3, "0");
  json spec = workerPodSpec(profile, decoration, bash(indexedScript(profile, decoration, net, host_of_rank)),
                            indexedEnv(profile, master));
  if (needsSshKeys(profile)) mountSshKeys(profile, spec, "worker");
  spec["restartPolicy"] = "Never";
  spec["subdomain"] = service;
  return {{"completionMode", "Indexed"},
          {"completions", profile.nodes},
          {"parallelism", profile.nodes},
          {"backoffLimit", 0},
          {"template", podTemplate(decoration.annotations, spec)}};
}

RenderedObject headlessService(const Profile& profile, const std::string& name, const json& selector) {
  return {"service.yaml",
          "Headless Service: stable DNS names for the ranks (control plane on the pod network).",
          {{"apiVersion", "v1"},
           {"kind", "Service"},
           {"metadata", metadata(name, profile.ns)},
           {"spec", {{"clusterIP", "None"}, {"publishNotReadyAddresses", true}, {"selector", selector}}}}};
}

// The mpirun line of a launcher pod that has the hostfile at `hostfile`
// (MPI Operator, Trainer's mpi policy). The launcher has no RDMA device:
// each rank computes its own pod's settings (perRankWrapper).
std::string mpiLauncherScript(const Profile& profile, const PodNetwork& net, const json& env,
                              const std::string& hostfile) {
  // ssh starts the ranks with a bare environment: the image's PATH and
  // library path, and the workers' NCCL settings, travel with -x.
  std::string forward;
  bool library_path_set = false;
  for (const auto& item : env) {
    if (!item.contains("value")) continue;
    library_path_set = library_path_set || item["name"] == "LD_LIBRARY_PATH";
    forward += " -x " + shellWord(item["name"].get<std::string>() + "=" + item["value"].get<std::string>());
  }
  forward = (library_path_set ? " -x PATH" : " -x PATH -x LD_LIBRARY_PATH") + forward;
  std::string script = net.railkit + " wait-dns --hostfile " + hostfile + " --timeout 600 || exit 3\n";
  std::string ranks = std::to_string(profile.nodes * profile.gpus_per_node);
  std::string program;
  if (profile.test.tool == "perftest") {
    // One rank per pod: rank 0 serves, rank 1 connects to the first host.
    script += "server=$(head -n 1 " + hostfile + " | cut -d' ' -f1)\n";
    ranks = "2 --map-by ppr:1:node";
    forward += " -x RAILKIT_PERFTEST_SERVER=\"$server\"";
    std::string body = indexedPerftestScript(profile, net, "\"$RAILKIT_PERFTEST_SERVER\"");
    program = "bash -c 'RANK=$OMPI_COMM_WORLD_RANK\n" + body + "'";
  } else if (profile.test.tool == "railkit" || profile.test.tool == "validate") {
    // railkit bench or validate under mpirun: the MPI bootstrap, or (built
    // without MPI) rank 0's rendezvous on the first host of the hostfile.
    // validate runs one rank per node.
    script += "master=$(head -n 1 " + hostfile + " | cut -d' ' -f1)\n";
    forward += " -x MASTER_ADDR=\"$master\" -x MASTER_PORT=" + std::string(kMasterPort);
    if (profile.test.tool == "validate") ranks = std::to_string(profile.nodes) + " --map-by ppr:1:node";
    program = perRankWrapper(net, railkitCommand(profile, net));
  } else {
    program = perRankWrapper(net, ncclTestsCommand(profile));
  }
  return script + "exec mpirun --hostfile " + hostfile + " -np " + ranks + " " + mpirunOptions(net) + " " +
         forward + " \\\n  " + program + "\n";
}

// A worker that serves sshd for mpirun; it checks first that the devices the
// test needs are there, so a pod without them fails at once. The keys come
// from a Secret volume (the MPI Operator's at /root/.ssh, Trainer's at
// keys_from), a directory the kubelet leaves open to others, which sshd's
// StrictModes refuses; a 0600 copy in a 0700 directory keeps StrictModes on
// instead of turning it off as upstream images do.
std::string sshdWorkerScript(const PodNetwork& net, const std::string& keys_from) {
  const std::string keys = keys_from.empty() ? "/root/.ssh" : keys_from;
  std::string script = envPrelude(net);
  script += "mkdir -p /run/sshd /run/railkit-ssh\nchmod 700 /run/railkit-ssh\ninstall -m 600 " + keys +
            "/authorized_keys /run/railkit-ssh/authorized_keys\n";
  script += "exec /usr/sbin/sshd -De -o AuthorizedKeysFile=/run/railkit-ssh/authorized_keys";
  if (net.ssh_port != 22) script += " -p " + std::to_string(net.ssh_port);
  return script + "\n";
}

// The launcher pod runs mpirun only: no GPU, no RDMA device, no NCCL env of
// its own (the workers' settings go with -x).
json launcherContainer(const Profile& profile, const std::string& name, const std::string& script) {
  return {{"name", name},
          {"image", profile.image},
          {"command", bash(script)},
          {"resources", {{"requests", {{"cpu", "1"}, {"memory", "1Gi"}}}}}};
}

// MPI slots per pod: one per GPU (lint's slots-gpu-mismatch). validate runs
// one rank per node by mpirun's --map-by ppr:1:node, as perftest does; a
// node validated to have no GPU still has one slot.
int slotsPerWorker(const Profile& profile) {
  return std::max(1, profile.gpus_per_node);
}

RenderedObject mpiJob(const Profile& profile, const PodDecoration& decoration) {
  PodNetwork net = podNetwork(profile, decoration);
  json env = ncclEnv(profile, decoration);
  json launcher = {
      {"containers",
       {launcherContainer(profile, "launcher", mpiLauncherScript(profile, net, env, "/etc/mpi/hostfile"))}}};
  injectRailkit(profile, launcher);
  json worker = workerPodSpec(profile, decoration, bash(sshdWorkerScript(net, "")), json::array());
  json spec = {
      {"slotsPerWorker", slotsPerWorker(profile)},
      {"runPolicy", {{"cleanPodPolicy", "Running"}}},
      {"mpiImplementation", "OpenMPI"},
      {"sshAuthMountPath", "/root/.ssh"},
      {"mpiReplicaSpecs",
       {{"Launcher", {{"replicas", 1}, {"template", podTemplate(json::object(), launcher)}}},
        {"Worker",
         {{"replicas", profile.nodes}, {"template", podTemplate(decoration.annotations, worker)}}}}}};
  return {"mpijob.yaml",
          "MPIJob: mpirun's control traffic stays on " + net.ctrl_if +
              " (btl self,tcp, routed direct); each rank runs railkit env in its own pod before the test. "
              "slotsPerWorker = GPUs.",
          {{"apiVersion", "kubeflow.org/v2beta1"},
           {"kind", "MPIJob"},
           {"metadata", metadata(profile.name, profile.ns)},
           {"spec", spec}}};
}

// Trainer v2: the torch policy (PET_* env) for railkit bench and perftest;
// the mpi policy with a launcher for MPI programs, as NVIDIA/aicr's
// nccl-all-reduce TrainingRuntime does. Containers are named `node`.
json trainingRuntimeSpec(const Profile& profile, const PodDecoration& decoration) {
  PodNetwork net = podNetwork(profile, decoration);
  const std::string& name = profile.name;
  json ancestor = {{"labels", {{"trainer.kubeflow.org/trainjob-ancestor-step", "trainer"}}}};
  auto jobOf = [](json pod_template) {
    pod_template["spec"]["restartPolicy"] = "Never";
    return json{{"template", pod_template}};
  };
  if (profile.test.tool != "nccl-tests") {
    std::string master = name + "-node-0-0." + name;
    std::string script = profile.test.tool == "perftest" ? indexedPerftestScript(profile, net, master)
                                                         : indexedBenchScript(profile, net);
    // Trainer injects PET_NNODES, PET_NODE_RANK, PET_MASTER_ADDR and
    // PET_MASTER_PORT into the `node` container; railkit bench and validate
    // read them.
    json pod = workerPodSpec(profile, decoration, bash(script), json::array({tokenEnv(profile)}), "node");
    json job = jobOf(podTemplate(decoration.annotations, pod));
    json replicated = {
        {"name", "node"}, {"replicas", 1}, {"template", {{"metadata", ancestor}, {"spec", job}}}};
    return {{"mlPolicy", {{"numNodes", profile.nodes}, {"torch", json::object()}}},
            {"template",
             {{"spec",
               {{"network", {{"enableDNSHostnames", true}, {"publishNotReadyAddresses", true}}},
                {"replicatedJobs", json::array({replicated})}}}}}};
  }
  const std::string keys = "/tmp/mpi-keys";  // Trainer's Secret, 0640/0644: copied for ssh
  json env = ncclEnv(profile, decoration);
  std::string launch = "mkdir -p /root/.ssh\nchmod 700 /root/.ssh\ninstall -m 600 " + keys +
                       "/id_rsa /root/.ssh/id_rsa\n" +
                       mpiLauncherScript(profile, net, env, "/etc/mpi/hostfile");
  json launcher_pod = {{"containers", {launcherContainer(profile, "node", launch)}}};
  injectRailkit(profile, launcher_pod);
  json worker_pod =
      workerPodSpec(profile, decoration, bash(sshdWorkerScript(net, keys)), json::array(), "node");
  // Ready once sshd listens: the launcher's dependsOn waits for that.
  worker_pod["containers"][0]["readinessProbe"] = {{"tcpSocket", {{"port", net.ssh_port}}},
                                                   {"periodSeconds", 2}};
  json launcher = {
      {"name", "launcher"},
      {"replicas", 1},
      {"dependsOn", {{{"name", "node"}, {"status", "Ready"}}}},
      {"template", {{"metadata", ancestor}, {"spec", jobOf(podTemplate(json::object(), launcher_pod))}}}};
  json node = {{"name", "node"},
               {"replicas", 1},
               {"template", {{"spec", jobOf(podTemplate(decoration.annotations, worker_pod))}}}};
  json mpi = {{"numProcPerNode", profile.gpus_per_node},
              {"mpiImplementation", "OpenMPI"},
              {"sshAuthMountPath", keys},
              {"runLauncherAsNode", false}};
  // The launcher's success ends the JobSet, and with it the sshd pods.
  return {{"mlPolicy", {{"numNodes", profile.nodes}, {"mpi", mpi}}},
          {"template",
           {{"spec",
             {{"network", {{"enableDNSHostnames", true}, {"publishNotReadyAddresses", true}}},
              {"successPolicy", {{"operator", "All"}, {"targetReplicatedJobs", {"launcher"}}}},
              {"replicatedJobs", json::array({node, launcher})}}}}}};
}

}  // namespace

Result<std::vector<RenderedObject>> renderLauncher(const Profile& profile, const PodDecoration& decoration) {
  std::vector<RenderedObject> objects;
  // The prelude also goes inside each MPI rank's bash -c '...'.
  for (const std::string& line : decoration.command_prelude)
    if (line.find('\'') != std::string::npos || line.find('\n') != std::string::npos)
      return makeError(ErrorCode::kInternal,
                       "render: a mode's command prelude line holds a quote or newline");
  const std::string& name = profile.name;
  if (needsSshKeys(profile)) {
    auto secret = sshKeySecret(profile);
    if (!secret) return tl::unexpected(secret.error());
    objects.push_back(std::move(*secret));
  }
  if (profile.launcher == "mpijob") {
    objects.push_back(mpiJob(profile, decoration));
  } else if (profile.launcher == "indexed-job") {
    objects.push_back(headlessService(profile, name, {{"job-name", name}}));
    objects.push_back({"job.yaml",
                       "Indexed Job: one pod per node, ranks from the completion index.",
                       {{"apiVersion", "batch/v1"},
                        {"kind", "Job"},
                        {"metadata", metadata(name, profile.ns)},
                        {"spec", indexedJobSpec(profile, decoration, name, name + "-{i}." + name)}}});
  } else if (profile.launcher == "jobset") {
    json job = indexedJobSpec(profile, decoration, name, name + "-workers-0-{i}." + name);
    job["template"]["spec"].erase("subdomain");  // JobSet sets it from network.subdomain
    objects.push_back(
        {"jobset.yaml",
         "JobSet: one replicated Indexed Job; JobSet creates the headless Service.",
         {{"apiVersion", "jobset.x-k8s.io/v1alpha2"},
          {"kind", "JobSet"},
          {"metadata", metadata(name, profile.ns)},
          {"spec",
           {{"network",
             {{"enableDNSHostnames", true}, {"subdomain", name}, {"publishNotReadyAddresses", true}}},
            {"replicatedJobs", {{{"name", "workers"}, {"replicas", 1}, {"template", {{"spec", job}}}}}}}}}});
  } else if (profile.launcher == "volcano-job") {
    objects.push_back(volcanoJob(profile, decoration));
  } else if (profile.launcher == "trainjob") {
    objects.push_back(
        {"trainingruntime.yaml",
         profile.test.tool == "nccl-tests"
             ? "TrainingRuntime (mpi policy): Trainer makes the SSH keys and /etc/mpi/hostfile; the "
               "launcher runs mpirun, the node pods serve sshd and end with the launcher."
             : "TrainingRuntime (torch policy): Trainer gives each `node` container PET_NODE_RANK, "
               "PET_NNODES, PET_MASTER_ADDR, PET_MASTER_PORT.",
         {{"apiVersion", "trainer.kubeflow.org/v1alpha1"},
          {"kind", "TrainingRuntime"},
          {"metadata", metadata(name + "-runtime", profile.ns)},
          {"spec", trainingRuntimeSpec(profile, decoration)}}});
    objects.push_back({"trainjob.yaml",
                       "TrainJob: runs the runtime on the requested number of nodes.",
                       {{"apiVersion", "trainer.kubeflow.org/v1alpha1"},
                        {"kind", "TrainJob"},
                        {"metadata", metadata(name, profile.ns)},
                        {"spec",
                         {{"runtimeRef",
                           {{"name", name + "-runtime"},
                            {"kind", "TrainingRuntime"},
                            {"apiGroup", "trainer.kubeflow.org"}}},
                          {"trainer", {{"numNodes", profile.nodes}}}}}}});
  }
  return objects;
}

}  // namespace railkit::k8s::render
