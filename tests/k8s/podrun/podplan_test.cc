// The pod runner's planner on small manifests: what each controller and the
// kubelet would make of them (names, env, files, interfaces, hosts).
#include <gtest/gtest.h>

#include <algorithm>

#include "compare.h"
#include "resolve.h"

namespace railkit::podrun {
namespace {

Result<Plan> plan(const std::string& yaml) {
  auto manifest = k8s::loadManifest(yaml, "test.yaml");
  if (!manifest) return tl::unexpected(manifest.error());
  PlanOptions options;
  options.controllers.ssh_private_key = "PRIVATE\n";
  options.controllers.ssh_public_key = "PUBLIC\n";
  // The plan points into the manifest only while planning.
  return planManifest(**manifest, options);
}

const ResolvedPod& pod(const Plan& p, const std::string& name) {
  auto found =
      std::find_if(p.pods.begin(), p.pods.end(), [&](const ResolvedPod& r) { return r.pod.name == name; });
  if (found == p.pods.end()) throw std::runtime_error("no pod " + name);
  return *found;
}

std::string env(const ResolvedContainer& c, const std::string& name) {
  for (const auto& [key, value] : c.env)
    if (key == name) return value;
  return "<unset>";
}

// NAME is one of the names of a hosts line.
bool resolves(const std::string& hosts, const std::string& name) {
  return hosts.find("\t" + name + "\t") != std::string::npos ||
         hosts.find("\t" + name + "\n") != std::string::npos;
}

const InjectedFile* file(const ResolvedContainer& c, const std::string& path) {
  for (const InjectedFile& f : c.files)
    if (f.path == path) return &f;
  return nullptr;
}

constexpr const char* kIndexedJob = R"y(
apiVersion: v1
kind: Secret
metadata: {name: tok, namespace: ns}
data: {token: c2VjcmV0LXRva2Vu}
---
apiVersion: v1
kind: Service
metadata: {name: svc, namespace: ns}
spec: {clusterIP: None, selector: {job-name: job}}
---
apiVersion: batch/v1
kind: Job
metadata: {name: job, namespace: ns}
spec:
  completionMode: Indexed
  completions: 3
  template:
    metadata:
      annotations: {k8s.v1.cni.cncf.io/networks: "rdma-net, other/b@data7"}
    spec:
      subdomain: svc
      containers:
        - name: main
          command: [/bin/sh, -c]
          args: ["echo $(RANK) of $(WORLD) $$(RANK) $(NOPE)"]
          env:
            - {name: WORLD, value: "3"}
            - name: RANK
              valueFrom: {fieldRef: {fieldPath: "metadata.annotations['batch.kubernetes.io/job-completion-index']"}}
            - name: POD
              valueFrom: {fieldRef: {fieldPath: metadata.name}}
            - name: IP
              valueFrom: {fieldRef: {fieldPath: status.podIP}}
            - name: TOKEN
              valueFrom: {secretKeyRef: {name: tok, key: token}}
)y";

TEST(PodPlan, IndexedJobPodsEnvAndNames) {
  auto p = plan(kIndexedJob);
  ASSERT_TRUE(p) << p.error().message;
  ASSERT_EQ(p->pods.size(), 3u);
  const ResolvedPod& second = pod(*p, "job-1");
  EXPECT_EQ(second.pod.hostname, "job-1");
  EXPECT_EQ(second.pod.subdomain, "svc");
  EXPECT_TRUE(second.pod.published);
  const ResolvedContainer& c = second.containers.at(0);
  EXPECT_EQ(env(c, "RANK"), "1");
  EXPECT_EQ(env(c, "JOB_COMPLETION_INDEX"), "1");
  EXPECT_EQ(env(c, "POD"), "job-1");
  EXPECT_EQ(env(c, "IP"), "198.18.10.12");
  EXPECT_EQ(env(c, "TOKEN"), "secret-token");
  EXPECT_EQ(c.argv, (std::vector<std::string>{"/bin/sh", "-c", "echo 1 of 3 $(RANK) $(NOPE)"}));
  // Multus: an unnamed attachment is net1, `@data7` names the second.
  ASSERT_EQ(second.netifs.size(), 3u);
  EXPECT_EQ(second.netifs[1].name, "net1");
  EXPECT_EQ(second.netifs[1].address, "198.18.20.12/24");
  EXPECT_EQ(second.netifs[2].name, "data7");
  EXPECT_EQ(second.netifs[2].address, "198.18.21.12/24");
  // Every peer resolves by hostname.subdomain, the search path's short form.
  EXPECT_NE(second.hosts.find("198.18.10.11\tjob-0.svc.ns.svc.cluster.local\tjob-0.svc\t"), std::string::npos)
      << second.hosts;
  EXPECT_FALSE(resolves(second.hosts, "job-0"));
  EXPECT_EQ(p->report_pod, "job-0");
}

TEST(PodPlan, JobWithoutItsHeadlessServiceIsNotPublished) {
  std::string yaml = kIndexedJob;
  yaml.replace(yaml.find("name: svc"), 9, "name: elsewhere");
  auto p = plan(yaml);
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_FALSE(pod(*p, "job-0").pod.published);
  EXPECT_EQ(pod(*p, "job-1").hosts.find("job-0"), std::string::npos);
  ASSERT_FALSE(p->notes.empty());
  EXPECT_NE(p->notes[0].find("no headless Service of that name selects it"), std::string::npos)
      << p->notes[0];
}

TEST(PodPlan, MissingSecretKeyIsTheKubeletsConfigError) {
  std::string yaml = kIndexedJob;
  yaml.replace(yaml.find("key: token"), 10, "key: other");
  auto p = plan(yaml);
  ASSERT_FALSE(p);
  EXPECT_NE(p.error().message.find("Secret tok key other is not in the manifest"), std::string::npos)
      << p.error().message;
  EXPECT_NE(p.error().message.find("CreateContainerConfigError"), std::string::npos);
}

TEST(PodPlan, JobSetSuccessPolicyDeletesTheOtherJobs) {
  auto p = plan(R"y(
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: js, namespace: ns}
spec:
  successPolicy: {operator: All, targetReplicatedJobs: [launcher]}
  replicatedJobs:
    - name: launcher
      template:
        spec:
          template:
            spec:
              containers: [{name: c, command: [mpirun]}]
    - name: node
      template:
        spec:
          completions: 2
          template:
            spec:
              containers: [{name: c, command: [sshd]}]
)y");
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(pod(*p, "js-launcher-0-0").pod.end, PlannedPod::End::kExits);
  EXPECT_EQ(pod(*p, "js-node-0-1").pod.end, PlannedPod::End::kDeletedWhenDone);
  // JobSet defaults every Job to Indexed.
  EXPECT_EQ(pod(*p, "js-node-0-1").pod.completion_index, 1);
}

TEST(PodPlan, JobSetNamesPodsPerReplicatedJob) {
  auto p = plan(R"y(
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: js, namespace: ns}
spec:
  network: {enableDNSHostnames: true, subdomain: net}
  replicatedJobs:
    - name: workers
      replicas: 2
      template:
        spec:
          completionMode: Indexed
          completions: 2
          template:
            spec:
              containers: [{name: c, command: [run]}]
)y");
  ASSERT_TRUE(p) << p.error().message;
  ASSERT_EQ(p->pods.size(), 4u);
  const ResolvedPod& last = pod(*p, "js-workers-1-1");
  EXPECT_EQ(last.pod.hostname, "js-workers-1-1");
  EXPECT_EQ(last.pod.subdomain, "net");
  EXPECT_EQ(last.pod.job, "js-workers-1");
  EXPECT_EQ(last.pod.spec.labels.at("jobset.sigs.k8s.io/job-global-index"), "1");
  EXPECT_EQ(env(last.containers[0], "JOB_COMPLETION_INDEX"), "1");
  EXPECT_NE(last.hosts.find("js-workers-0-0.net.ns.svc.cluster.local"), std::string::npos);
}

constexpr const char* kMpiJob = R"y(
apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata: {name: mj, namespace: ns}
spec:
  slotsPerWorker: 4
  runPolicy: {cleanPodPolicy: Running}
  mpiReplicaSpecs:
    Launcher:
      template:
        spec:
          containers: [{name: launcher, command: [mpirun, hostname]}]
    Worker:
      replicas: 2
      template:
        spec:
          containers: [{name: worker}]
)y";

TEST(PodPlan, MpiJobHostfileSshAndLauncherEnv) {
  auto p = plan(kMpiJob);
  ASSERT_TRUE(p) << p.error().message;
  ASSERT_EQ(p->pods.size(), 3u);
  EXPECT_EQ(p->report_pod, "mj-launcher");
  const ResolvedContainer& launcher = pod(*p, "mj-launcher").containers.at(0);
  const InjectedFile* hostfile = file(launcher, "/etc/mpi/hostfile");
  ASSERT_NE(hostfile, nullptr);
  EXPECT_EQ(hostfile->content, "mj-worker-0.mj.ns.svc slots=4\nmj-worker-1.mj.ns.svc slots=4\n");
  EXPECT_EQ(hostfile->mode, 0444);
  EXPECT_EQ(env(launcher, "OMPI_MCA_orte_default_hostfile"), "/etc/mpi/hostfile");
  EXPECT_EQ(env(launcher, "OMPI_MCA_orte_keep_fqdn_hostnames"), "true");
  EXPECT_EQ(env(launcher, "OMPI_MCA_plm_rsh_args"), "-o ConnectionAttempts=10");
  EXPECT_EQ(env(launcher, "OMPI_MCA_orte_set_default_slots"), "4");
  EXPECT_EQ(env(launcher, "K_MPI_JOB_ROLE"), "launcher");
  const ResolvedPod& worker = pod(*p, "mj-worker-1");
  EXPECT_EQ(worker.pod.end, PlannedPod::End::kDeletedWhenDone);
  EXPECT_EQ(worker.containers[0].argv, (std::vector<std::string>{"/usr/sbin/sshd", "-De"}));
  const InjectedFile* key = file(worker.containers[0], "/root/.ssh/id_rsa");
  ASSERT_NE(key, nullptr);
  EXPECT_EQ(key->content, "PRIVATE\n");
  EXPECT_EQ(key->mode, 0600);
  ASSERT_NE(file(worker.containers[0], "/root/.ssh/authorized_keys"), nullptr);
  EXPECT_EQ(file(worker.containers[0], "/root/.ssh/authorized_keys")->content, "PUBLIC\n");
  // The launcher resolves the hostfile's names; workers also the bare launcher name.
  EXPECT_TRUE(resolves(pod(*p, "mj-launcher").hosts, "mj-worker-1.mj.ns.svc"));
  EXPECT_FALSE(resolves(pod(*p, "mj-launcher").hosts, "mj-worker-1"));
  EXPECT_TRUE(resolves(worker.hosts, "mj-launcher")) << worker.hosts;
}

TEST(PodPlan, MpiJobWithoutCleanPodPolicyLeavesWorkersRunning) {
  std::string yaml = kMpiJob;
  yaml.replace(yaml.find("Running"), 7, "None");
  auto p = plan(yaml);
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(pod(*p, "mj-worker-0").pod.end, PlannedPod::End::kOutlivesLauncher);
  ASSERT_FALSE(p->notes.empty());
}

constexpr const char* kTrainJob = R"y(
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainingRuntime
metadata: {name: rt, namespace: ns}
spec:
  mlPolicy: {numNodes: 2, torch: {}}
  template:
    spec:
      replicatedJobs:
        - name: node
          template:
            metadata: {labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}}
            spec:
              completionMode: Indexed
              template:
                spec:
                  containers: [{name: node, command: [train]}]
---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: tj, namespace: ns}
spec:
  runtimeRef: {name: rt, kind: TrainingRuntime}
  trainer: {numNodes: 3}
)y";

TEST(PodPlan, TrainJobTorchStampsTheRuntimeWithPetEnv) {
  auto p = plan(kTrainJob);
  ASSERT_TRUE(p) << p.error().message;
  ASSERT_EQ(p->pods.size(), 3u);  // trainer.numNodes overrides mlPolicy.numNodes
  const ResolvedContainer& node = pod(*p, "tj-node-0-2").containers.at(0);
  EXPECT_EQ(env(node, "PET_NNODES"), "3");
  EXPECT_EQ(env(node, "PET_NODE_RANK"), "2");
  EXPECT_EQ(env(node, "PET_MASTER_ADDR"), "tj-node-0-0.tj");
  EXPECT_EQ(env(node, "PET_MASTER_PORT"), "29500");
  EXPECT_EQ(env(node, "PET_NPROC_PER_NODE"), "auto");
  EXPECT_TRUE(p->notes.empty());
}

TEST(PodPlan, TrainJobPetEnvReachesOnlyTheContainerNamedNode) {
  std::string yaml = kTrainJob;
  yaml.replace(yaml.find("{name: node, command"), 11, "{name: main");
  auto p = plan(yaml);
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(env(pod(*p, "tj-node-0-0").containers[0], "PET_NNODES"), "<unset>");
  ASSERT_EQ(p->notes.size(), 1u);
  EXPECT_NE(p->notes[0].find("only into a container named 'node'"), std::string::npos);
}

TEST(PodPlan, TrainJobMpiPolicyLauncherHostfileAndKeys) {
  std::string yaml = kTrainJob;
  yaml.replace(yaml.find("torch: {}"), 9, "mpi: {numProcPerNode: 1}");
  yaml.replace(yaml.find("      replicatedJobs:\n"), 22,
               "      replicatedJobs:\n"
               "        - name: launcher\n"
               "          template:\n"
               "            spec:\n"
               "              template:\n"
               "                spec:\n"
               "                  containers: [{name: node, command: [mpirun]}]\n");
  auto p = plan(yaml);
  ASSERT_TRUE(p) << p.error().message;
  ASSERT_EQ(p->pods.size(), 4u);
  EXPECT_EQ(p->report_pod, "tj-launcher-0-0");
  const ResolvedContainer& launcher = pod(*p, "tj-launcher-0-0").containers.at(0);
  const InjectedFile* hostfile = file(launcher, "/etc/mpi/hostfile");
  ASSERT_NE(hostfile, nullptr);
  EXPECT_EQ(hostfile->content, "tj-node-0-0.tj slots=1\ntj-node-0-1.tj slots=1\ntj-node-0-2.tj slots=1\n");
  EXPECT_EQ(env(launcher, "OMPI_MCA_orte_default_hostfile"), "/etc/mpi/hostfile");
  const InjectedFile* key = file(pod(*p, "tj-node-0-1").containers[0], "/root/.ssh/id_rsa");
  ASSERT_NE(key, nullptr);
  EXPECT_EQ(key->mode, 0640);  // Trainer's mode: ssh refuses it for root (group-readable)
}

TEST(PodPlan, DraClaimNamesTheInterface) {
  auto p = plan(R"y(
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: nic, namespace: ns}
spec:
  spec:
    devices:
      requests: [{name: nic}]
      config:
        - opaque: {driver: dra.net, parameters: {interface: {name: dranet0}}}
---
apiVersion: batch/v1
kind: Job
metadata: {name: j, namespace: ns}
spec:
  template:
    spec:
      resourceClaims: [{name: nic, resourceClaimTemplateName: nic}]
      containers: [{name: c, command: [run]}]
)y");
  ASSERT_TRUE(p) << p.error().message;
  ASSERT_EQ(p->pods.at(0).netifs.size(), 2u);
  EXPECT_EQ(p->pods[0].netifs[1].name, "dranet0");
}

TEST(PodPlan, ExpandVarsFollowsKubernetes) {
  std::vector<std::pair<std::string, std::string>> env = {{"A", "x"}};
  EXPECT_EQ(expandVars("$(A)-$$(A)-$(B)-$A-$(A", env), "x-$(A)-$(B)-$A-$(A");
}

TEST(PodPlanCompare, OnlyTheBinaryAndItsFlagsMayDiffer) {
  auto same = compareWords(scriptWords("wait; mpirun -np 2 \\\n  railkit bench all_reduce -b 8\n"),
                           scriptWords("wait; mpirun -np 2 \\\n  all_reduce_perf -b 8 -g 1\n"));
  ASSERT_TRUE(same) << same.error().message;
  EXPECT_EQ(*same, "'railkit bench all_reduce -b 8' -> 'all_reduce_perf -b 8 -g 1'");
  auto sshd =
      compareWords(scriptWords("mpirun railkit bench x\n"), scriptWords("sshd; mpirun ib_write_bw x\n"));
  ASSERT_FALSE(sshd);
  EXPECT_NE(sshd.error().message.find("beyond the binary"), std::string::npos) << sshd.error().message;
  auto extra = compareWords({"run", "x"}, {"run", "wrap", "x"});
  ASSERT_FALSE(extra);
  EXPECT_NE(extra.error().message.find("added or removed"), std::string::npos) << extra.error().message;
  auto branch =
      compareWords(scriptWords("env; railkit bench x"), scriptWords("env; if a; then ib_write_bw; fi"));
  ASSERT_FALSE(branch);
  EXPECT_NE(branch.error().message.find("beyond the binary"), std::string::npos) << branch.error().message;
  EXPECT_TRUE(compareWords({"a", "b"}, {"a", "b"}).value().empty());
}

// perftest's script names its binary on several lines (server, client, error
// messages): each line may swap it, and only it.
TEST(PodPlanCompare, ABinaryOnSeveralLinesIsOneSwap) {
  std::string a =
      "env\nif r; then exec timeout 600 ib_write_bw \"$@\"; fi\necho \"ib_write_bw: none\" >&2\n"
      "timeout 9 ib_write_bw \"$@\" rk-0.rk\n";
  std::string b =
      "env\nif r; then exec timeout 600 ib_read_bw -q 2 \"$@\"; fi\necho \"ib_read_bw: none\" >&2\n"
      "timeout 9 ib_read_bw \"$@\" rk-0.rk\n";
  auto swapped = compareScriptWords(scriptWords(a), scriptWords(b));
  ASSERT_TRUE(swapped) << swapped.error().message;
  EXPECT_EQ(*swapped,
            "'ib_write_bw' -> 'ib_read_bw -q 2'; '\"ib_write_bw:' -> '\"ib_read_bw:'; 'ib_write_bw' -> "
            "'ib_read_bw'");
  // A second, different swap on another line is not the binary's.
  std::string c = b;
  c.replace(0, 3, "ENV");
  auto other = compareScriptWords(scriptWords(a), scriptWords(c));
  ASSERT_FALSE(other);
  EXPECT_NE(other.error().message.find("env -> ENV"), std::string::npos) << other.error().message;
  // A line that differs beyond the binary still fails.
  std::string d = b;
  d.replace(d.find("exec timeout 600"), 16, "exec timeout 6000; true");
  EXPECT_FALSE(compareScriptWords(scriptWords(a), scriptWords(d)));
}

// An emptyDir is the pod's, shared by the containers that mount it (an
// initContainer fills it); each container keeps its image and user.
TEST(PodPlan, EmptyDirImagesAndUsers) {
  auto p = plan(R"y(
apiVersion: batch/v1
kind: Job
metadata: {name: job, namespace: ns}
spec:
  completionMode: Indexed
  completions: 1
  template:
    spec:
      initContainers:
        - name: copy
          image: tools:1
          command: [/usr/local/bin/railkit, install-self, /opt/railkit]
          securityContext: {runAsUser: 65534, runAsGroup: 65534, readOnlyRootFilesystem: true}
          volumeMounts: [{name: bin, mountPath: /opt/railkit}]
      containers:
        - name: main
          image: app:1
          command: [/opt/railkit/railkit, --version]
          volumeMounts:
            - {name: bin, mountPath: /opt/railkit, readOnly: true}
            - {name: shm, mountPath: /dev/shm}
      volumes:
        - {name: bin, emptyDir: {}}
        - {name: shm, emptyDir: {medium: Memory}}
)y");
  ASSERT_TRUE(p) << p.error().message;
  const ResolvedPod& job = pod(*p, "job-0");
  ASSERT_EQ(job.containers.size(), 2u);
  const ResolvedContainer& copy = job.containers[0];
  EXPECT_EQ(copy.kind, "init");
  EXPECT_EQ(copy.image, "tools:1");
  EXPECT_EQ(copy.run_as_user, 65534);
  EXPECT_EQ(copy.run_as_group, 65534);
  EXPECT_TRUE(copy.read_only_root);
  ASSERT_EQ(copy.pod_volumes.size(), 1u);
  EXPECT_EQ(copy.pod_volumes[0].volume, "bin");
  EXPECT_FALSE(copy.pod_volumes[0].read_only);
  const ResolvedContainer& main = job.containers[1];
  EXPECT_EQ(main.image, "app:1");
  EXPECT_EQ(main.run_as_user, -1);
  EXPECT_FALSE(main.read_only_root);
  ASSERT_EQ(main.pod_volumes.size(), 1u);  // /dev/shm is the pod's own tmpfs
  EXPECT_EQ(main.pod_volumes[0].path, "/opt/railkit");
  EXPECT_TRUE(main.pod_volumes[0].read_only);
  EXPECT_TRUE(main.dirs.empty());
}

}  // namespace
}  // namespace railkit::podrun
