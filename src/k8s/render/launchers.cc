// Launchers: the job objects around the decorated worker pods.
#include <algorithm>

#include "k8s/render/parts.h"

namespace railkit::k8s::render {

json envVar(const std::string& name, const std::string& value) { return {{"name", name}, {"value", value}}; }

json metadata(const std::string& name, const std::string& ns) { return {{"name", name}, {"namespace", ns}}; }

bool usesEnvBootstrap(const std::string& launcher) {
  return launcher == "indexed-job" || launcher == "jobset" || launcher == "trainjob";
}

std::string jobTokenSecretName(const Profile& profile) { return profile.name + "-job-token"; }

// The token travels in a Secret, not in the pod spec: whoever may read the
// Job (kubectl get -o yaml, events, logs of controllers) need not be able to
// join its rendezvous.
Result<RenderedObject> jobTokenSecret(const Profile& profile) {
  const std::string& token = profile.job_token;
  bool printable = std::all_of(token.begin(), token.end(), [](char c) { return c > ' ' && c < 0x7f; });
  if (token.size() < 16 || token.size() > 1024 || !printable) {
    return makeError(ErrorCode::kUsage, "render: the job token must be 16..1024 printable characters without spaces");
  }
  return RenderedObject{"job-token-secret.yaml",
                        "Secret: the job token railkit bench's rendezvous checks (RAILKIT_JOB_TOKEN in the workers); "
                        "a stranger without it cannot join or stop the job. One per job, random per render.",
                        {{"apiVersion", "v1"},
                         {"kind", "Secret"},
                         {"metadata", metadata(jobTokenSecretName(profile), profile.ns)},
                         {"type", "Opaque"},
                         {"stringData", {{"token", token}}}}};
}

json ncclEnv(const Profile& profile, const PodDecoration& decoration) {
  json env = decoration.env;
  env.push_back(envVar("NCCL_DEBUG", "INFO"));
  env.push_back(envVar("NCCL_DEBUG_SUBSYS", "INIT,NET"));
  if (profile.mode != "gke-tcpxo") env.push_back(envVar("UCX_NET_DEVICES", profile.control_interface));
  return env;
}

json workerPodSpec(const Profile& profile, const PodDecoration& decoration, const json& command,
                   const json& extra_env) {
  json limits = decoration.limits;
  if (!decoration.gpus_from_dra) limits["nvidia.com/gpu"] = profile.gpus_per_node;
  json env = ncclEnv(profile, decoration);
  for (const auto& item : extra_env) env.push_back(item);
  json mounts = json::array({{{"name", "dshm"}, {"mountPath", "/dev/shm"}}});
  for (const auto& mount : decoration.extra_mounts) mounts.push_back(mount);
  json resources = {{"requests", limits}, {"limits", limits}};
  if (!decoration.container_claims.empty()) resources["claims"] = decoration.container_claims;
  json main = {{"name", "worker"},
               {"image", profile.image},
               {"command", command},
               {"env", env},
               {"resources", resources},
               {"securityContext", {{"capabilities", {{"add", decoration.capabilities}}}}},
               {"volumeMounts", mounts}};
  json containers = json::array({main});
  for (const auto& sidecar : decoration.extra_containers) containers.push_back(sidecar);
  json volumes = json::array({{{"name", "dshm"}, {"emptyDir", {{"medium", "Memory"}, {"sizeLimit", profile.shm_size}}}}});
  for (const auto& volume : decoration.extra_volumes) volumes.push_back(volume);
  json spec = {{"containers", containers}, {"volumes", volumes}};
  if (!decoration.init_containers.empty()) spec["initContainers"] = decoration.init_containers;
  if (!decoration.pod_claims.empty()) spec["resourceClaims"] = decoration.pod_claims;
  if (decoration.host_network) {
    spec["hostNetwork"] = true;
    spec["dnsPolicy"] = "ClusterFirstWithHostNet";
  }
  return spec;
}

namespace {

std::string testCommand(const Profile& profile) {
  const TestSpec& test = profile.test;
  if (test.tool == "railkit")
    return "railkit bench " + test.op + " --backend nccl -b " + test.min_bytes + " -e " + test.max_bytes;
  if (test.tool == "perftest") return test.op + " -d mlx5_0 --report_gbits -a";
  return test.op + "_perf -b " + test.min_bytes + " -e " + test.max_bytes + " -f 2 -g 1";
}

std::vector<std::string> envNames(const json& env) {
  std::vector<std::string> names;
  for (const auto& item : env) names.push_back(item["name"].get<std::string>());
  return names;
}

json podTemplate(const json& annotations, const json& spec) {
  json tmpl = {{"spec", spec}};
  if (!annotations.empty()) tmpl["metadata"] = {{"annotations", annotations}};
  return tmpl;
}

// Env bootstrap for Indexed Jobs: rank from the completion index.
json indexedEnv(const Profile& profile, const std::string& master) {
  return json::array(
      {{{"name", "RANK"},
        {"valueFrom", {{"fieldRef", {{"fieldPath", "metadata.annotations['batch.kubernetes.io/job-completion-index']"}}}}}},
       envVar("WORLD_SIZE", std::to_string(profile.nodes)), envVar("MASTER_ADDR", master),
       envVar("MASTER_PORT", "29500"),
       {{"name", "RAILKIT_JOB_TOKEN"},
        {"valueFrom", {{"secretKeyRef", {{"name", jobTokenSecretName(profile)}, {"key", "token"}}}}}}});
}

json indexedJobSpec(const Profile& profile, const PodDecoration& decoration, const std::string& service,
                    const std::string& master) {
  json spec = workerPodSpec(profile, decoration, {"/bin/sh", "-c", testCommand(profile)}, indexedEnv(profile, master));
  spec["restartPolicy"] = "Never";
  spec["subdomain"] = service;
  return {{"completionMode", "Indexed"}, {"completions", profile.nodes}, {"parallelism", profile.nodes},
          {"backoffLimit", 0}, {"template", podTemplate(decoration.annotations, spec)}};
}

RenderedObject headlessService(const Profile& profile, const std::string& name, const json& selector) {
  return {"service.yaml", "Headless Service: stable DNS names for the ranks (control plane on the pod network).",
          {{"apiVersion", "v1"}, {"kind", "Service"}, {"metadata", metadata(name, profile.ns)},
           {"spec", {{"clusterIP", "None"}, {"publishNotReadyAddresses", true}, {"selector", selector}}}}};
}

}  // namespace

Result<std::vector<RenderedObject>> renderLauncher(const Profile& profile, const PodDecoration& decoration) {
  std::vector<RenderedObject> objects;
  const std::string& name = profile.name;
  if (profile.launcher == "mpijob") {
    json env = ncclEnv(profile, decoration);
    std::string forward;
    for (const std::string& var : envNames(env)) forward += " -x " + var;
    int ranks = profile.nodes * profile.gpus_per_node;
    std::string script =
        "set -e\n"
        "# Wait until every worker in the hostfile resolves: mpirun fails on the first unknown host.\n"
        "for host in $(cut -d' ' -f1 /etc/mpi/hostfile); do\n"
        "  until getent hosts \"$host\" >/dev/null; do sleep 2; done\n"
        "done\n"
        "mpirun --allow-run-as-root -np " + std::to_string(ranks) + " --bind-to none \\\n"
        "  --mca btl self,tcp --mca btl_tcp_if_include " + profile.control_interface + " \\\n"
        "  --mca oob_tcp_if_include " + profile.control_interface + " --mca pml ob1 --mca routed direct \\\n"
        "  --mca coll_hcoll_enable 0 --mca coll ^hcoll,ucc \\\n"
        " " + forward + " \\\n"
        "  " + testCommand(profile) + "\n";
    json launcher = {{"containers", {{{"name", "launcher"},
                                      {"image", profile.image},
                                      {"command", {"/bin/bash", "-c", script}},
                                      {"env", env},
                                      {"resources", {{"requests", {{"cpu", "1"}, {"memory", "1Gi"}}}}}}}}};
    json worker = workerPodSpec(profile, decoration, {"/usr/sbin/sshd", "-De"}, json::array());
    json spec = {{"slotsPerWorker", profile.gpus_per_node},
                 {"runPolicy", {{"cleanPodPolicy", "Running"}}},
                 {"mpiImplementation", "OpenMPI"},
                 {"sshAuthMountPath", "/root/.ssh"},
                 {"mpiReplicaSpecs",
                  {{"Launcher", {{"replicas", 1}, {"template", podTemplate(json::object(), launcher)}}},
                   {"Worker", {{"replicas", profile.nodes}, {"template", podTemplate(decoration.annotations, worker)}}}}}};
    objects.push_back({"mpijob.yaml",
                       "MPIJob: mpirun's control traffic stays on " + profile.control_interface +
                           " (btl self,tcp, routed direct); NCCL uses the RDMA interfaces. slotsPerWorker = GPUs.",
                       {{"apiVersion", "kubeflow.org/v2beta1"}, {"kind", "MPIJob"}, {"metadata", metadata(name, profile.ns)},
                        {"spec", spec}}});
  } else if (profile.launcher == "indexed-job") {
    std::string master = name + "-0." + name;
    objects.push_back(headlessService(profile, name, {{"job-name", name}}));
    objects.push_back({"job.yaml", "Indexed Job: one pod per node, ranks from the completion index, no SSH.",
                       {{"apiVersion", "batch/v1"}, {"kind", "Job"}, {"metadata", metadata(name, profile.ns)},
                        {"spec", indexedJobSpec(profile, decoration, name, master)}}});
  } else if (profile.launcher == "jobset") {
    std::string master = name + "-workers-0-0." + name;
    json job = indexedJobSpec(profile, decoration, name, master);
    job["template"]["spec"].erase("subdomain");  // JobSet sets it from network.subdomain
    objects.push_back({"jobset.yaml", "JobSet: one replicated Indexed Job; JobSet creates the headless Service.",
                       {{"apiVersion", "jobset.x-k8s.io/v1alpha2"}, {"kind", "JobSet"},
                        {"metadata", metadata(name, profile.ns)},
                        {"spec", {{"network", {{"enableDNSHostnames", true}, {"subdomain", name}}},
                                  {"replicatedJobs", {{{"name", "workers"}, {"replicas", 1}, {"template", {{"spec", job}}}}}}}}}});
  } else if (profile.launcher == "trainjob") {
    std::string master = name + "-node-0-0." + name;
    json job = indexedJobSpec(profile, decoration, name, master);
    job["template"]["spec"].erase("subdomain");
    json replicated = {{"name", "node"},
                       {"replicas", 1},
                       {"template", {{"metadata", {{"labels", {{"trainer.kubeflow.org/trainjob-ancestor-step", "trainer"}}}}},
                                     {"spec", job}}}};
    json jobset = {{"network", {{"enableDNSHostnames", true}, {"subdomain", name}}},
                   {"replicatedJobs", json::array({replicated})}};
    json runtime = {{"mlPolicy", {{"numNodes", profile.nodes}, {"torch", json::object()}}},
                    {"template", {{"spec", jobset}}}};
    objects.push_back({"trainingruntime.yaml", "TrainingRuntime: the decorated pod template Trainer v2 stamps out.",
                       {{"apiVersion", "trainer.kubeflow.org/v1alpha1"}, {"kind", "TrainingRuntime"},
                        {"metadata", metadata(name + "-runtime", profile.ns)}, {"spec", runtime}}});
    objects.push_back({"trainjob.yaml", "TrainJob: runs the runtime on the requested number of nodes.",
                       {{"apiVersion", "trainer.kubeflow.org/v1alpha1"}, {"kind", "TrainJob"},
                        {"metadata", metadata(name, profile.ns)},
                        {"spec", {{"runtimeRef", {{"name", name + "-runtime"}, {"kind", "TrainingRuntime"},
                                                   {"apiGroup", "trainer.kubeflow.org"}}},
                                  {"trainer", {{"numNodes", profile.nodes}}}}}}});
  }
  return objects;
}

}  // namespace railkit::k8s::render
