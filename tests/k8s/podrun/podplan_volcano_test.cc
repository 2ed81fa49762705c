// The pod runner's Volcano Job (batch.volcano.sh/v1alpha1): pod names, the
// svc plugin's hostnames, Service and hosts ConfigMap, the pytorch plugin's
// env, the env plugin's index, and how the pods end (Volcano's job
// controller and plugins, volcano-sh/volcano pkg/controllers/job).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "resolve.h"
#include "support/test_support.h"

namespace railkit::podrun {
namespace {

Result<Plan> plan(const std::string& yaml) {
  auto manifest = k8s::loadManifest(yaml, "test.yaml");
  if (!manifest) return tl::unexpected(manifest.error());
  return planManifest(**manifest, PlanOptions{});
}

const ResolvedPod* podNamed(const Plan& p, const std::string& name) {
  auto found =
      std::find_if(p.pods.begin(), p.pods.end(), [&](const ResolvedPod& r) { return r.pod.name == name; });
  return found == p.pods.end() ? nullptr : &*found;
}

std::string env(const ResolvedContainer& c, const std::string& name) {
  std::string value = "<unset>";
  for (const auto& [key, item] : c.env)  // the last entry of a name wins, as in the kubelet
    if (key == name) value = item;
  return value;
}

std::string fileText(const ResolvedContainer& c, const std::string& path) {
  for (const InjectedFile& f : c.files)
    if (f.path == path) return f.content;
  return "<none>";
}

constexpr const char* kVolcanoJob = R"y(
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: vj, namespace: ns}
spec:
  schedulerName: volcano
  minAvailable: 3
  plugins:
    svc: ["--publish-not-ready-addresses"]
    pytorch: ["--master=master", "--worker=worker", "--port=29500"]
    env: []
  tasks:
    - name: master
      replicas: 1
      policies: [{event: TaskCompleted, action: CompleteJob}]
      template:
        spec:
          initContainers:
            - {name: prep, command: [/bin/true]}
          containers:
            - {name: master, command: [/bin/sh, -c, "echo $(RANK)"]}
    - name: worker
      replicas: 2
      template:
        spec:
          containers:
            - {name: worker, command: [/bin/true]}
)y";

TEST(PodPlanVolcano, TasksPodsNamesAndPluginEnv) {
  auto p = plan(kVolcanoJob);
  ASSERT_TRUE(p) << p.error().message;
  ASSERT_EQ(p->pods.size(), 3u);
  const ResolvedPod* master = podNamed(*p, "vj-master-0");
  const ResolvedPod* worker = podNamed(*p, "vj-worker-1");
  ASSERT_NE(master, nullptr);
  ASSERT_NE(worker, nullptr);
  EXPECT_NE(podNamed(*p, "vj-worker-0"), nullptr);
  // svc: hostname = pod name, subdomain = job, published by the job's Service.
  EXPECT_EQ(worker->pod.hostname, "vj-worker-1");
  EXPECT_EQ(worker->pod.subdomain, "vj");
  EXPECT_TRUE(worker->pod.published);
  EXPECT_NE(worker->hosts.find("\tvj-master-0.vj\t"), std::string::npos) << worker->hosts;
  EXPECT_EQ(worker->pod.spec.labels.at("volcano.sh/job-name"), "vj");
  EXPECT_EQ(worker->pod.spec.labels.at("volcano.sh/task-spec"), "worker");
  // pytorch: rank 0 is the master's pod, worker INDEX is rank INDEX + 1.
  const ResolvedContainer& wc = worker->containers.at(0);
  EXPECT_EQ(env(wc, "RANK"), "2");
  EXPECT_EQ(env(wc, "WORLD_SIZE"), "3");
  EXPECT_EQ(env(wc, "MASTER_ADDR"), "vj-master-0.vj");
  EXPECT_EQ(env(wc, "MASTER_PORT"), "29500");
  EXPECT_EQ(env(wc, "VC_TASK_INDEX"), "1");
  // svc's hosts: env from the ConfigMap and the files under /etc/volcano.
  EXPECT_EQ(env(wc, "VC_WORKER_HOSTS"), "vj-worker-0.vj,vj-worker-1.vj");
  EXPECT_EQ(env(wc, "VC_WORKER_NUM"), "2");
  EXPECT_EQ(env(wc, "VC_MASTER_HOSTS"), "vj-master-0.vj");
  EXPECT_EQ(fileText(wc, "/etc/volcano/worker.host"), "vj-worker-0.vj\nvj-worker-1.vj");
  ASSERT_EQ(master->containers.size(), 2u);
  const ResolvedContainer& init = master->containers.at(0);
  const ResolvedContainer& mc = master->containers.at(1);
  EXPECT_EQ(init.kind, "init");
  EXPECT_EQ(env(init, "RANK"), "<unset>");     // pytorch leaves init containers alone
  EXPECT_EQ(env(init, "VC_MASTER_NUM"), "1");  // svc does not
  EXPECT_EQ(env(mc, "RANK"), "0");
  EXPECT_EQ(mc.argv, (std::vector<std::string>{"/bin/sh", "-c", "echo 0"}));
  // Every pod must end by itself: the runner leaves out Volcano's stop of
  // what still runs when CompleteJob fires, so a pass holds in the cluster.
  EXPECT_EQ(master->pod.end, PlannedPod::End::kExits);
  EXPECT_EQ(worker->pod.end, PlannedPod::End::kExits);
  EXPECT_EQ(p->report_pod, "vj-master-0");
}

TEST(PodPlanVolcano, PytorchWithoutSvcGetsItFromTheWebhook) {
  std::string yaml = kVolcanoJob;
  const std::string svc = "    svc: [\"--publish-not-ready-addresses\"]\n";
  yaml.replace(yaml.find(svc), svc.size(), "");
  ASSERT_EQ(yaml.find("svc:"), std::string::npos);
  auto p = plan(yaml);
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_TRUE(podNamed(*p, "vj-worker-0")->pod.published);
  ASSERT_FALSE(p->notes.empty());
  EXPECT_NE(p->notes[0].find("Volcano's webhook adds the svc plugin"), std::string::npos) << p->notes[0];
}

TEST(PodPlanVolcano, PytorchMasterTaskMissing) {
  std::string yaml = kVolcanoJob;
  yaml.replace(yaml.find("--master=master"), 15, "--master=chief");
  auto p = plan(yaml);
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(env(podNamed(*p, "vj-worker-0")->containers.at(0), "RANK"), "<unset>");
  bool noted = std::any_of(p->notes.begin(), p->notes.end(), [](const std::string& note) {
    return note.find("master task 'chief' is not in the job") != std::string::npos;
  });
  EXPECT_TRUE(noted);
}

TEST(PodPlanVolcano, UnsimulatedPluginIsAnError) {
  std::string yaml = kVolcanoJob;
  yaml.replace(yaml.find("    env: []"), 11, "    ssh: []");
  auto p = plan(yaml);
  ASSERT_FALSE(p);
  EXPECT_NE(p.error().message.find("Job/vj: the pod runner simulates Volcano's svc, pytorch and env plugins, "
                                   "not 'ssh'"),
            std::string::npos)
      << p.error().message;
}

// A batch/v1 Job is still the Job controller's (no Volcano names).
TEST(PodPlanVolcano, BatchJobIsNotVolcanos) {
  auto p = plan(R"y(
apiVersion: batch/v1
kind: Job
metadata: {name: bj, namespace: ns}
spec:
  template:
    spec:
      containers: [{name: c, command: [/bin/true]}]
)y");
  ASSERT_TRUE(p) << p.error().message;
  ASSERT_EQ(p->pods.size(), 1u);
  EXPECT_EQ(p->pods[0].pod.name, "bj-0");
  EXPECT_EQ(p->pods[0].pod.spec.labels.count("volcano.sh/job-name"), 0u);
}

// The pytorch plugin's --wait-master-enabled: each worker pod first runs an
// init container that waits for the master's port, with the given timeout.
TEST(PodPlanVolcano, WaitMasterInitContainer) {
  std::string yaml = kVolcanoJob;
  const std::string flag = "\"--port=29500\"";
  yaml.replace(yaml.find(flag), flag.size(),
               flag + ", \"--wait-master-enabled=true\", \"--wait-master-timeout=600\"");
  auto p = plan(yaml);
  ASSERT_TRUE(p) << p.error().message;
  const ResolvedPod* worker = podNamed(*p, "vj-worker-1");
  ASSERT_NE(worker, nullptr);
  ASSERT_EQ(worker->containers.size(), 2u);
  const ResolvedContainer& wait = worker->containers.at(0);
  EXPECT_EQ(wait.name, "wait-for-master");
  EXPECT_EQ(wait.kind, "init");
  EXPECT_EQ(wait.image, "busybox:1.36.1");
  ASSERT_EQ(wait.argv.size(), 3u);
  EXPECT_NE(wait.argv[2].find("nc -z vj-master-0.vj 29500"), std::string::npos) << wait.argv[2];
  EXPECT_NE(wait.argv[2].find("-lt 600 ]"), std::string::npos) << wait.argv[2];
  // The master waits for nobody (its own init container only).
  EXPECT_EQ(podNamed(*p, "vj-master-0")->containers.size(), 2u);
}

// Oracle's OKE example (tests/k8s/fixtures/real): one task with the env and
// svc plugins, no pytorch; its torchrun line reads VC_TASK_INDEX,
// VC_WORKER_HOSTS and VC_WORKER_NUM.
TEST(PodPlanVolcano, RealOkeEnvAndSvcJob) {
  std::ifstream in(railkit::testing::sourceDir() / "tests" / "k8s" / "fixtures" / "real" /
                   "oci-oke-yolov5-hostnetwork-volcano-job.yaml");
  std::ostringstream text;
  text << in.rdbuf();
  ASSERT_FALSE(text.str().empty());
  auto p = plan(text.str());
  ASSERT_TRUE(p) << p.error().message;
  ASSERT_EQ(p->pods.size(), 2u);
  const ResolvedPod* second = podNamed(*p, "yolov5-job-worker-1");
  ASSERT_NE(second, nullptr);
  const ResolvedContainer& c = second->containers.at(0);
  EXPECT_EQ(env(c, "VC_TASK_INDEX"), "1");
  EXPECT_EQ(env(c, "VC_WORKER_HOSTS"), "yolov5-job-worker-0.yolov5-job,yolov5-job-worker-1.yolov5-job");
  EXPECT_EQ(env(c, "VC_WORKER_NUM"), "2");
  EXPECT_EQ(env(c, "RANK"), "<unset>");  // no pytorch plugin
  EXPECT_EQ(second->pod.hostname, "yolov5-job-worker-1");
  EXPECT_TRUE(second->pod.published);
  EXPECT_EQ(p->report_pod, "yolov5-job-worker-0");
}
}  // namespace
}  // namespace railkit::podrun
