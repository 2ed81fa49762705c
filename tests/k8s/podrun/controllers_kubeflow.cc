// Kubeflow's controllers: the MPI Operator (v2beta1 MPIJob) and Trainer v2
// (TrainJob stamped from a TrainingRuntime's JobSet template, torch and mpi
// policies). What each injects follows upstream: mpi-operator
// pkg/controller/mpi_job_controller.go (newWorker, newLauncherPodTemplate,
// newConfigMap, setupSSHOnPod) and trainer pkg/runtime/framework/plugins
// (torch.go, mpi.go, jobset/builder.go, jobset.go syncPodNetwork).
#include "controllers.h"

namespace railkit::podrun {
namespace {

using k8s::YamlNode;

std::string text(const YamlNode* node, const std::string& fallback) {
  return node != nullptr && !node->text().empty() ? node->text() : fallback;
}

// A Secret volume holding the SSH key pair, mounted on `container` at `path`.
void mountSshSecret(PodTemplate& pod, Container& container, const std::string& secret,
                    const std::string& path, int default_mode, int private_mode, int public_mode) {
  Volume volume;
  volume.name = "ssh-auth";
  volume.kind = Volume::Kind::kSecret;
  volume.source = secret;
  volume.default_mode = default_mode;
  volume.items = {{"ssh-privatekey", "id_rsa", private_mode},
                  {"ssh-publickey", "id_rsa.pub", public_mode},
                  {"ssh-publickey", "authorized_keys", public_mode}};
  pod.volumes.push_back(volume);
  container.mounts.push_back({"ssh-auth", path, ""});
}

void mountHostfile(PodTemplate& pod, Container& container, const std::string& config_map,
                   bool discover_script) {
  Volume volume;
  volume.name = "mpi-job-config";
  volume.kind = Volume::Kind::kConfigMap;
  volume.source = config_map;
  volume.items = {{"hostfile", "hostfile", 0444}};
  if (discover_script) volume.items.push_back({"discover_hosts.sh", "discover_hosts.sh", 0555});
  pod.volumes.push_back(volume);
  container.mounts.push_back({"mpi-job-config", "/etc/mpi", ""});
}

Container* findContainer(PodTemplate& pod, const std::string& name) {
  for (Container& c : pod.containers)
    if (c.name == name) return &c;
  return nullptr;
}

}  // namespace

Status expandMpiJob(const k8s::Object& object, const ControllerOptions& options, Expansion& out) {
  const YamlNode* spec = object.root->get("spec");
  std::string where = object.ref();
  if (spec == nullptr) return makeError(ErrorCode::kInvalidInput, where + ": no spec");
  const std::string& name = object.name;
  auto slots = intField(spec->get("slotsPerWorker"), 1, where + " spec.slotsPerWorker");
  if (!slots) return tl::unexpected(slots.error());
  std::string clean = text(spec->at({"runPolicy", "cleanPodPolicy"}), "None");
  std::string ssh_path = text(spec->get("sshAuthMountPath"), "/root/.ssh");
  if (text(spec->get("mpiImplementation"), "OpenMPI") != "OpenMPI")
    return makeError(ErrorCode::kInvalidInput,
                     where + ": the pod runner simulates mpiImplementation OpenMPI only");
  const YamlNode* launcher_spec = spec->at({"mpiReplicaSpecs", "Launcher"});
  const YamlNode* worker_spec = spec->at({"mpiReplicaSpecs", "Worker"});
  if (launcher_spec == nullptr || launcher_spec->get("template") == nullptr)
    return makeError(ErrorCode::kInvalidInput, where + ": no mpiReplicaSpecs.Launcher.template");
  auto workers =
      intField(worker_spec ? worker_spec->get("replicas") : nullptr, 0, where + " Worker.replicas");
  if (!workers) return tl::unexpected(workers.error());
  std::string secret = name + "-ssh";
  std::string config = name + "-config";
  // setupSSHOnPod: mode 0600 only when the mount is /root/.ssh.
  int ssh_mode = ssh_path == "/root/.ssh" ? 0600 : 0644;

  std::string hostfile;
  std::string discover = "#!/bin/sh\n";
  std::string domain = "." + name + "." + object.ns + ".svc";
  for (long i = 0; i < *workers; ++i) {
    std::string worker = name + "-worker-" + std::to_string(i);
    hostfile += worker + domain + " slots=" + std::to_string(*slots) + "\n";
    discover += "echo " + worker + domain + "\n";
  }
  out.data.push_back(
      {"ConfigMap", object.ns, config, {{"hostfile", hostfile}, {"discover_hosts.sh", discover}}});
  out.data.push_back(
      {"Secret",
       object.ns,
       secret,
       {{"ssh-privatekey", options.ssh_private_key}, {"ssh-publickey", options.ssh_public_key}}});

  std::map<std::string, std::string> job_labels = {{"training.kubeflow.org/operator-name", "mpi-operator"},
                                                   {"training.kubeflow.org/job-name", name}};
  auto launcher = parsePodTemplate(*launcher_spec->get("template"), where + " Launcher.template");
  if (!launcher) return tl::unexpected(launcher.error());
  Container& main = launcher->containers.front();
  main.env.push_back(literalEnv("K_MPI_JOB_ROLE", "launcher"));
  main.env.push_back(literalEnv("OMPI_MCA_orte_keep_fqdn_hostnames", "true"));
  main.env.push_back(literalEnv("OMPI_MCA_orte_default_hostfile", "/etc/mpi/hostfile"));
  main.env.push_back(literalEnv("OMPI_MCA_plm_rsh_args", "-o ConnectionAttempts=10"));
  main.env.push_back(literalEnv("OMPI_MCA_orte_set_default_slots", std::to_string(*slots)));
  main.env.push_back(literalEnv("NVIDIA_VISIBLE_DEVICES", ""));
  main.env.push_back(literalEnv("NVIDIA_DRIVER_CAPABILITIES", ""));
  mountSshSecret(*launcher, main, secret, ssh_path, ssh_mode, -1, -1);
  mountHostfile(*launcher, main, config, true);
  launcher->hostname = name + "-launcher";
  launcher->subdomain = name;
  for (const auto& [key, value] : job_labels) launcher->labels[key] = value;
  launcher->labels["training.kubeflow.org/job-role"] = "launcher";
  JobShape launcher_job{name + "-launcher", object.ns, 1, false, where, "launcher", std::move(*launcher), {}};
  size_t first = out.pods.size();
  stampJob(launcher_job, out);
  out.pods[first].name = name + "-launcher";
  out.pods[first].published = true;
  out.report_pod = out.pods[first].name;

  if (*workers > 0) {
    auto worker = parsePodTemplate(*worker_spec->get("template"), where + " Worker.template");
    if (!worker) return tl::unexpected(worker.error());
    Container& wmain = worker->containers.front();
    if (wmain.command.empty() && wmain.args.empty()) wmain.command = {"/usr/sbin/sshd", "-De"};
    wmain.env.push_back(literalEnv("K_MPI_JOB_ROLE", "worker"));
    mountSshSecret(*worker, wmain, secret, ssh_path, ssh_mode, -1, -1);
    worker->dns_searches.push_back(name + "." + object.ns + ".svc." + options.cluster_domain);
    for (const auto& [key, value] : job_labels) worker->labels[key] = value;
    worker->labels["training.kubeflow.org/job-role"] = "worker";
    for (long i = 0; i < *workers; ++i) {
      PlannedPod pod;
      pod.name = name + "-worker-" + std::to_string(i);
      pod.ns = object.ns;
      pod.hostname = pod.name;
      pod.subdomain = name;
      pod.controller = where;
      pod.role = "worker";
      pod.published = true;
      pod.end = clean == "Running" || clean == "All" ? PlannedPod::End::kDeletedWhenDone
                                                     : PlannedPod::End::kOutlivesLauncher;
      pod.spec = *worker;
      pod.spec.labels["training.kubeflow.org/replica-index"] = std::to_string(i);
      out.pods.push_back(std::move(pod));
    }
    if (clean == "None")
      out.notes.push_back(
          where +
          ": runPolicy.cleanPodPolicy None: the MPI Operator leaves the workers (sshd) running "
          "after the launcher ends");
  }
  return {};
}

Status expandTrainJob(const k8s::Object& object, const k8s::Manifest& manifest,
                      const ControllerOptions& options, Expansion& out) {
  std::string where = object.ref();
  const YamlNode* spec = object.root->get("spec");
  if (spec == nullptr) return makeError(ErrorCode::kInvalidInput, where + ": no spec");
  std::string runtime_name = text(spec->at({"runtimeRef", "name"}), "");
  std::string runtime_kind = text(spec->at({"runtimeRef", "kind"}), "ClusterTrainingRuntime");
  const k8s::Object* runtime = nullptr;
  for (const k8s::Object& candidate : manifest.objects)
    if (candidate.kind == runtime_kind && candidate.name == runtime_name &&
        (runtime_kind == "ClusterTrainingRuntime" || candidate.ns == object.ns))
      runtime = &candidate;
  if (runtime == nullptr)
    return makeError(ErrorCode::kInvalidInput,
                     where + ": runtimeRef " + runtime_kind + "/" + runtime_name + " is not in the manifest");
  const YamlNode* policy = runtime->root->at({"spec", "mlPolicy"});
  const YamlNode* template_spec = runtime->root->at({"spec", "template", "spec"});
  if (template_spec == nullptr)
    return makeError(ErrorCode::kInvalidInput, runtime->ref() + ": no spec.template.spec");
  auto jobset = parseJobSetSpec(*template_spec, object.name, object.ns, runtime->ref());
  if (!jobset) return tl::unexpected(jobset.error());
  const YamlNode* trainer = spec->get("trainer");
  auto policy_nodes =
      intField(policy ? policy->get("numNodes") : nullptr, 0, runtime->ref() + " mlPolicy.numNodes");
  auto trainer_nodes = intField(trainer ? trainer->get("numNodes") : nullptr, 0, where + " trainer.numNodes");
  if (!policy_nodes) return tl::unexpected(policy_nodes.error());
  if (!trainer_nodes) return tl::unexpected(trainer_nodes.error());
  long nodes = *trainer_nodes > 0 ? *trainer_nodes : *policy_nodes;
  const YamlNode* torch = policy ? policy->get("torch") : nullptr;
  const YamlNode* mpi = policy ? policy->get("mpi") : nullptr;
  bool launcher_as_node = mpi != nullptr && text(mpi->get("runLauncherAsNode"), "false") == "true";
  std::string master = object.name + "-node-0-0." + object.name;

  for (ReplicatedJob& rjob : jobset->jobs) {
    bool trainer_job = rjob.job_labels["trainer.kubeflow.org/trainjob-ancestor-step"] == "trainer";
    if (trainer_job) rjob.replicas = 1;
    Container* node = findContainer(rjob.pod, "node");
    // jobset/builder.go Trainer(): the TrainJob's trainer fields reach only the container named `node`.
    if (trainer_job && trainer != nullptr && node != nullptr) {
      if (const YamlNode* command = trainer->get("command"); command != nullptr && command->isSeq()) {
        node->command.clear();
        for (const YamlNode& item : command->items) node->command.push_back(item.text());
      }
      if (const YamlNode* args = trainer->get("args"); args != nullptr && args->isSeq()) {
        node->args.clear();
        for (const YamlNode& item : args->items) node->args.push_back(item.text());
      }
      if (const YamlNode* env = trainer->get("env"); env != nullptr && env->isSeq())
        for (const YamlNode& item : env->items)
          upsertEnv(node->env, literalEnv(text(item.get("name"), ""), text(item.get("value"), "")));
    }
    bool counted = torch != nullptr ? trainer_job : rjob.name == "node";
    if (counted && nodes > 0)
      rjob.completions = mpi != nullptr && launcher_as_node ? std::max(nodes - 1, 1L) : nodes;
    if (torch != nullptr && trainer_job) {
      if (node == nullptr) {
        out.notes.push_back(where +
                            ": Trainer's torch plugin injects PET_* only into a container named 'node'; "
                            "replicated job " +
                            rjob.name + " has none, so it gets no PET_* env");
      } else if (trainer != nullptr) {
        std::string nproc = trainer->get("numProcPerNode") ? trainer->get("numProcPerNode")->text() : "auto";
        upsertEnv(node->env, literalEnv("PET_NNODES", std::to_string(rjob.completions)));
        upsertEnv(node->env, literalEnv("PET_NPROC_PER_NODE", nproc));
        upsertEnv(node->env, fieldEnv("PET_NODE_RANK",
                                      "metadata.annotations['batch.kubernetes.io/job-completion-index']"));
        upsertEnv(node->env, literalEnv("PET_MASTER_ADDR", master));
        upsertEnv(node->env, literalEnv("PET_MASTER_PORT", "29500"));
      }
    }
    if (mpi != nullptr && (rjob.name == "node" || rjob.name == "launcher")) {
      std::string ssh_path = text(mpi->get("sshAuthMountPath"), "/root/.ssh");
      if (node == nullptr) {
        out.notes.push_back(where +
                            ": Trainer's mpi plugin mounts SSH keys only into a container named 'node'; "
                            "replicated job " +
                            rjob.name + " has none");
        continue;
      }
      mountSshSecret(rjob.pod, *node, object.name + "-mpi-ssh-auth", ssh_path, 0400, 0640, 0644);
      if (rjob.name != "launcher") continue;
      std::string slots = trainer && trainer->get("numProcPerNode") ? trainer->get("numProcPerNode")->text()
                                                                    : text(mpi->get("numProcPerNode"), "1");
      mountHostfile(rjob.pod, *node, object.name + "-mpi-hostfile", false);
      upsertEnv(node->env, literalEnv("OMPI_MCA_orte_default_hostfile", "/etc/mpi/hostfile"));
      upsertEnv(node->env, literalEnv("OMPI_MCA_orte_keep_fqdn_hostnames", "true"));
      upsertEnv(node->env, literalEnv("OMPI_MCA_orte_set_default_slots", slots));
      upsertEnv(node->env, literalEnv("OMPI_MCA_plm_rsh_args", "-o ConnectionAttempts=10"));
    }
  }
  if (mpi != nullptr) {
    std::string slots = trainer && trainer->get("numProcPerNode") ? trainer->get("numProcPerNode")->text()
                                                                  : text(mpi->get("numProcPerNode"), "1");
    std::string hostfile;
    for (const ReplicatedJob& rjob : jobset->jobs) {
      if (rjob.name != "node" && !(launcher_as_node && rjob.name == "launcher")) continue;
      for (long j = 0; j < rjob.replicas; ++j)
        for (long i = 0; i < rjob.completions; ++i)
          hostfile += object.name + "-" + rjob.name + "-" + std::to_string(j) + "-" + std::to_string(i) +
                      "." + jobset->subdomain + " slots=" + slots + "\n";
    }
    out.data.push_back({"ConfigMap", object.ns, object.name + "-mpi-hostfile", {{"hostfile", hostfile}}});
    out.data.push_back(
        {"Secret",
         object.ns,
         object.name + "-mpi-ssh-auth",
         {{"ssh-privatekey", options.ssh_private_key}, {"ssh-publickey", options.ssh_public_key}}});
  }
  size_t first = out.pods.size();
  stampJobSet(*jobset, where, out);
  for (size_t p = first; p < out.pods.size(); ++p)
    if (mpi != nullptr && out.pods[p].role == "launcher") out.report_pod = out.pods[p].name;
  return {};
}

}  // namespace railkit::podrun
