// What each launcher's pods run: the rendered objects are taken apart and
// their commands, env and fields checked against what makes a multi-node test
// really run (docs/render.md "Launchers").
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "k8s/manifest.h"
#include "k8s/render/launch_scripts.h"
#include "k8s/render/profile.h"
#include "k8s/render/render.h"
#include "k8s/render/ssh_key.h"
#include "support/process.h"

namespace railkit::k8s::render {
namespace {

using nlohmann::json;

const char* kToken = "fixed-job-token-for-tests-0123456789";
const char* kPrivate = "-----BEGIN EC PRIVATE KEY-----\nfixed\n-----END EC PRIVATE KEY-----\n";
const char* kPublic = "ecdsa-sha2-nistp256 AAAAfixed railkit-test\n";

Profile profileOf(const std::string& mode, const std::string& launcher, const std::string& tool) {
  Profile profile;
  profile.name = "nccl-check";
  profile.image = "registry.example.com/nccl:1";
  profile.mode = mode;
  profile.launcher = launcher;
  profile.fabric = "roce";
  profile.data_interfaces = {"ens1f0", "ens2f0"};  // host names: never in the pods
  profile.hcas = {"mlx5_0", "mlx5_1"};
  profile.test.tool = tool;
  profile.job_token = kToken;
  profile.ssh_private_key = kPrivate;
  profile.ssh_public_key = kPublic;
  return profile;
}

std::vector<RenderedObject> rendered(const Profile& profile) {
  auto objects = renderProfile(profile);
  EXPECT_TRUE(objects) << objects.error().message;
  return objects ? *objects : std::vector<RenderedObject>{};
}

const json* objectOfKind(const std::vector<RenderedObject>& objects, const std::string& kind) {
  for (const auto& object : objects)
    if (object.object["kind"] == kind) return &object.object;
  return nullptr;
}

// Every container, at any depth, with the path to it.
void collectContainers(const json& node, std::vector<const json*>& out) {
  if (node.is_object()) {
    if (node.contains("containers")) {
      for (const auto& container : node["containers"]) out.push_back(&container);
      return;
    }
    for (const auto& [key, value] : node.items()) collectContainers(value, out);
  } else if (node.is_array()) {
    for (const auto& value : node) collectContainers(value, out);
  }
}

std::string scriptOf(const json& container) {
  const json& command = container["command"];
  EXPECT_EQ(command[0], "/bin/bash");
  EXPECT_EQ(command[1], "-c");
  return command[2].get<std::string>();
}

std::optional<json> envOf(const json& container, const std::string& name) {
  for (const auto& item : container.value("env", json::array()))
    if (item["name"] == name) return item;
  return std::nullopt;
}

const json& podSpecOf(const json& object) {
  const std::string kind = object["kind"];
  if (kind == "Job") return object["spec"]["template"]["spec"];
  if (kind == "JobSet") return object["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"];
  return object["spec"]["template"]["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"];
}

bool startsWith(const std::string& text, const std::string& prefix) {
  return text.rfind(prefix, 0) == 0;
}

const char* kPrelude =
    "railkit_env=$(railkit env --ctrl-if eth0 --data-if net1,net2 --check) || exit 1\n"
    "eval \"$railkit_env\"\n";

// 1. railkit bench with the env bootstrap, one rank per pod, on the pod's
// own interface names.
TEST(RenderLaunchers, IndexedPodsRunRailkitBenchWithTheEnvBootstrap) {
  struct Case {
    const char* launcher;
    const char* master;
  };
  for (const Case c : {Case{"indexed-job", "nccl-check-0.nccl-check"},
                       Case{"jobset", "nccl-check-workers-0-0.nccl-check"}}) {
    Profile profile = profileOf("sriov", c.launcher, "railkit");
    profile.test.backend = "ucx";
    auto objects = rendered(profile);
    const json* job = objectOfKind(objects, std::string(c.launcher) == "jobset" ? "JobSet" : "Job");
    ASSERT_NE(job, nullptr) << c.launcher;
    const json& container = podSpecOf(*job)["containers"][0];
    std::string script = scriptOf(container);
    EXPECT_EQ(
        script,
        std::string(kPrelude) +
            "exec railkit bench all_reduce --backend ucx --data-if =net1,net2 --ctrl-if =eth0 -b 8 -e 8G"
            " --nproc-per-node 8\n");  // the profile's node has 8 GPUs: one rank each
    auto rank = envOf(container, "RANK");
    ASSERT_TRUE(rank);
    EXPECT_EQ((*rank)["valueFrom"]["fieldRef"]["fieldPath"],
              "metadata.annotations['batch.kubernetes.io/job-completion-index']");
    EXPECT_EQ((*envOf(container, "WORLD_SIZE"))["value"], "2");
    EXPECT_EQ((*envOf(container, "MASTER_ADDR"))["value"], c.master);
    EXPECT_EQ((*envOf(container, "MASTER_PORT"))["value"], "29500");
    EXPECT_EQ((*envOf(container, "RAILKIT_JOB_TOKEN"))["valueFrom"]["secretKeyRef"]["name"],
              "nccl-check-job-token");
    // The pod's devices come from railkit env, never the host's names.
    EXPECT_FALSE(envOf(container, "NCCL_IB_HCA"));
    EXPECT_FALSE(envOf(container, "UCX_NET_DEVICES"));
    EXPECT_FALSE(envOf(container, "NCCL_IB_GID_INDEX"));
    EXPECT_EQ(container.dump().find("ens1f0"), std::string::npos);
  }
  // Over tcp no RDMA device is needed: railkit env without --check.
  Profile tcp = profileOf("rdma-shared", "indexed-job", "railkit");
  tcp.test.backend = "tcp";
  auto objects = rendered(tcp);
  std::string script = scriptOf(podSpecOf(*objectOfKind(objects, "Job"))["containers"][0]);
  EXPECT_TRUE(startsWith(script, "railkit_env=$(railkit env --ctrl-if eth0 --data-if net1,net2) || exit 1\n"))
      << script;
  EXPECT_NE(script.find("--backend tcp --data-if =net1,net2 --ctrl-if =eth0"), std::string::npos) << script;
}

TEST(RenderLaunchers, TrainerTorchPolicyGivesPetEnvToTheNodeContainer) {
  auto objects = rendered(profileOf("dra", "trainjob", "railkit"));
  const json* runtime = objectOfKind(objects, "TrainingRuntime");
  ASSERT_NE(runtime, nullptr);
  EXPECT_TRUE((*runtime)["spec"]["mlPolicy"].contains("torch"));
  EXPECT_EQ((*runtime)["spec"]["mlPolicy"]["numNodes"], 2);
  const json& replicated = (*runtime)["spec"]["template"]["spec"]["replicatedJobs"][0];
  EXPECT_EQ(replicated["name"], "node");
  EXPECT_EQ(replicated["template"]["metadata"]["labels"]["trainer.kubeflow.org/trainjob-ancestor-step"],
            "trainer");
  const json& container = podSpecOf(*runtime)["containers"][0];
  EXPECT_EQ(container["name"], "node");
  std::string script = scriptOf(container);
  EXPECT_TRUE(startsWith(
      script, "railkit_env=$(railkit env --ctrl-if eth0 --data-if dranet0,dranet1 --check) || exit 1\n"));
  EXPECT_NE(script.find("railkit bench all_reduce --backend nccl --data-if =dranet0,dranet1 --ctrl-if =eth0"),
            std::string::npos);
  // Trainer injects PET_*: a RANK or MASTER_PORT of ours could only disagree.
  EXPECT_FALSE(envOf(container, "RANK"));
  EXPECT_FALSE(envOf(container, "MASTER_PORT"));
  EXPECT_TRUE(envOf(container, "RAILKIT_JOB_TOKEN"));
  EXPECT_FALSE(envOf(container, "NCCL_IB_HCA"));
}

// 2. nccl-tests over indexed pods: sshd everywhere, rank 0 waits for the
// names, writes the hostfile and runs mpirun; the others end after rank 0.
TEST(RenderLaunchers, IndexedPodsRunNcclTestsOverSsh) {
  Profile profile = profileOf("host-device", "jobset", "nccl-tests");
  profile.test.op = "all_gather";
  auto objects = rendered(profile);
  const json* secret = nullptr;
  for (const auto& object : objects)
    if (object.object["kind"] == "Secret" && object.object["metadata"]["name"] == "nccl-check-ssh")
      secret = &object.object;
  ASSERT_NE(secret, nullptr);
  EXPECT_EQ((*secret)["type"], "kubernetes.io/ssh-auth");
  EXPECT_EQ((*secret)["stringData"]["ssh-privatekey"], kPrivate);
  EXPECT_EQ((*secret)["stringData"]["ssh-publickey"], kPublic);
  const json* jobset = objectOfKind(objects, "JobSet");
  ASSERT_NE(jobset, nullptr);
  const json& pod = podSpecOf(*jobset);
  bool mounted = false;
  for (const auto& volume : pod["volumes"])
    if (volume["name"] == "ssh-keys") {
      EXPECT_EQ(volume["secret"]["secretName"], "nccl-check-ssh");
      EXPECT_EQ(volume["secret"]["defaultMode"], 0400);
      mounted = true;
    }
  EXPECT_TRUE(mounted);
  const json& container = pod["containers"][0];
  bool read_only = false;
  for (const auto& mount : container["volumeMounts"])
    if (mount["name"] == "ssh-keys")
      read_only = mount["readOnly"] == true && mount["mountPath"] == "/etc/railkit/ssh";
  EXPECT_TRUE(read_only);
  std::string script = scriptOf(container);
  EXPECT_TRUE(startsWith(script, kPrelude)) << script;
  for (const char* needle :
       {"mkdir -p /run/sshd", "/usr/sbin/sshd -D -e &", "echo \"nccl-check-workers-0-$i.nccl-check slots=8\"",
        "railkit wait-dns --hostfile \"$hostfile\" --timeout 600", "mpirun --hostfile \"$hostfile\" -np 16",
        "-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null", "--mca btl_tcp_if_include eth0",
        "-x NCCL_DEBUG",
        "bash -c 'railkit_env=$(railkit env --ctrl-if eth0 --data-if net1,net2 --check) || exit 1; "
        "eval \"$railkit_env\"; exec all_gather_perf -b 8 -e 8G -f 2 -g 1'",
        "master=nccl-check-workers-0-0.nccl-check", "/dev/tcp/$master/22", "kill \"$sshd_pid\"\nexit 0\n"})
    EXPECT_NE(script.find(needle), std::string::npos) << needle << "\n" << script;
  // rank 0 tells every peer the run is over (they end on that, not on a probe
  // a short run slips between), then ends with mpirun's status.
  EXPECT_NE(script.find("  status=$?\n"), std::string::npos) << script;
  EXPECT_NE(script.find("\"nccl-check-workers-0-$i.nccl-check\" 'touch /run/railkit-run-over'"),
            std::string::npos)
      << script;
  EXPECT_NE(script.find("  kill \"$sshd_pid\"\n  exit \"$status\"\n"), std::string::npos);
  EXPECT_NE(script.find("while [ ! -e /run/railkit-run-over ]; do"), std::string::npos) << script;
}

const json& volcanoTask(const json& job, const std::string& name) {
  for (const auto& task : job["spec"]["tasks"])
    if (task["name"] == name) return task;
  ADD_FAILURE() << "no task " << name;
  static const json none;
  return none;
}

// 3. Volcano Job: master and worker tasks, gang-scheduled by volcano; the svc
// and pytorch plugins give the env bootstrap its names and RANK.
TEST(RenderLaunchers, VolcanoJobMasterAndWorkerTasks) {
  Profile profile = profileOf("sriov", "volcano-job", "railkit");
  profile.nodes = 3;
  auto objects = rendered(profile);
  const json* job = objectOfKind(objects, "Job");
  ASSERT_NE(job, nullptr);
  EXPECT_EQ((*job)["apiVersion"], "batch.volcano.sh/v1alpha1");
  const json& spec = (*job)["spec"];
  EXPECT_EQ(spec["schedulerName"], "volcano");
  EXPECT_EQ(spec["minAvailable"], 3);  // all pods or none
  EXPECT_EQ(spec["plugins"]["svc"], json::array({"--publish-not-ready-addresses"}));
  EXPECT_EQ(spec["plugins"]["pytorch"], json::array({"--master=master", "--worker=worker", "--port=29500"}));
  EXPECT_EQ(spec["policies"][0], (json{{"event", "PodFailed"}, {"action", "TerminateJob"}}));
  ASSERT_EQ(spec["tasks"].size(), 2u);
  const json& master = volcanoTask(*job, "master");
  const json& worker = volcanoTask(*job, "worker");
  EXPECT_EQ(master["replicas"], 1);
  EXPECT_EQ(worker["replicas"], 2);
  EXPECT_EQ(master["policies"], json::array({{{"event", "TaskCompleted"}, {"action", "CompleteJob"}}}));
  EXPECT_FALSE(worker.contains("policies"));
  for (const json* task : {&master, &worker}) {
    const json& pod = (*task)["template"]["spec"];
    EXPECT_EQ(pod["restartPolicy"], "Never");
    EXPECT_EQ((*task)["template"]["metadata"]["annotations"]["k8s.v1.cni.cncf.io/networks"],
              "nccl-check-rail0@net1,nccl-check-rail1@net2");
    const json& container = pod["containers"][0];
    EXPECT_EQ(container["name"], (*task)["name"]);
    EXPECT_EQ(container["securityContext"]["capabilities"]["add"], json::array({"IPC_LOCK"}));
    EXPECT_EQ(container["volumeMounts"][0], (json{{"name", "dshm"}, {"mountPath", "/dev/shm"}}));
    EXPECT_EQ(
        scriptOf(container),
        std::string(kPrelude) +
            "exec railkit bench all_reduce --backend nccl --data-if =net1,net2 --ctrl-if =eth0 -b 8 -e 8G"
            " --nproc-per-node 8\n");
    // RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT are the pytorch plugin's.
    for (const char* name : {"RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT", "NCCL_IB_HCA"})
      EXPECT_FALSE(envOf(container, name)) << name;
    EXPECT_EQ((*envOf(container, "RAILKIT_JOB_TOKEN"))["valueFrom"]["secretKeyRef"]["name"],
              "nccl-check-job-token");
  }
  EXPECT_NE(objectOfKind(objects, "Secret"), nullptr);  // the job token
  // One node: the master task alone.
  profile.nodes = 1;
  auto one = rendered(profile);
  const json* single = objectOfKind(one, "Job");
  ASSERT_NE(single, nullptr);
  EXPECT_EQ((*single)["spec"]["tasks"].size(), 1u);
  EXPECT_EQ((*single)["spec"]["minAvailable"], 1);
}

// nccl-tests in a Volcano Job: rank 0 (the master's pod) names its peers by
// the svc plugin's pattern, JOB-worker-(RANK-1).JOB; perftest's client finds
// the server at JOB-master-0.JOB.
TEST(RenderLaunchers, VolcanoJobNcclTestsAndPerftestHosts) {
  auto objects = rendered(profileOf("rdma-shared", "volcano-job", "nccl-tests"));
  const json* job = objectOfKind(objects, "Job");
  ASSERT_NE(job, nullptr);
  bool keys = false;
  for (const auto& object : objects) keys = keys || object.object["metadata"]["name"] == "nccl-check-ssh";
  EXPECT_TRUE(keys);
  for (const char* task : {"master", "worker"}) {
    const json& pod = volcanoTask(*job, task)["template"]["spec"];
    bool mounted = false;
    for (const auto& mount : pod["containers"][0]["volumeMounts"])
      mounted = mounted || (mount["name"] == "ssh-keys" && mount["mountPath"] == "/etc/railkit/ssh");
    EXPECT_TRUE(mounted) << task;
    std::string script = scriptOf(pod["containers"][0]);
    for (const char* needle :
         {"rank_host() { if [ \"$1\" = 0 ]; then echo nccl-check-master-0.nccl-check; else echo "
          "\"nccl-check-worker-$(($1 - 1)).nccl-check\"; fi; }\n",
          "echo \"$(rank_host \"$i\") slots=8\" >>\"$hostfile\"", "mpirun --hostfile \"$hostfile\" -np 16",
          "\"$(rank_host \"$i\")\" 'touch /run/railkit-run-over'", "master=nccl-check-master-0.nccl-check\n"})
      EXPECT_NE(script.find(needle), std::string::npos) << task << ": " << needle << "\n" << script;
  }
  auto perftest = rendered(profileOf("rdma-shared", "volcano-job", "perftest"));
  std::string script =
      scriptOf(volcanoTask(*objectOfKind(perftest, "Job"), "worker")["template"]["spec"]["containers"][0]);
  EXPECT_NE(script.find("echo nccl-check-master-0.nccl-check >/tmp/railkit-server"), std::string::npos)
      << script;
}

TEST(RenderLaunchers, TestNamesMapToRealBinaries) {
  for (const char* op : {"all_reduce", "alltoall", "sendrecv", "reduce_scatter"}) {
    Profile profile = profileOf("rdma-shared", "mpijob", "nccl-tests");
    profile.test.op = op;
    auto objects = rendered(profile);
    EXPECT_NE(objects.back().object.dump().find(std::string(op) + "_perf -b 8 -e 8G -f 2 -g 1"),
              std::string::npos)
        << op;
  }
  for (const char* bad : {"allreduce", "all_reduce_perf", "ib_write_bw"}) {
    Profile profile = profileOf("rdma-shared", "mpijob", "nccl-tests");
    profile.test.op = bad;
    auto objects = renderProfile(profile);
    ASSERT_FALSE(objects) << bad;
    EXPECT_NE(objects.error().message.find("not an nccl-tests binary"), std::string::npos);
  }
  Profile railkit_bad = profileOf("rdma-shared", "jobset", "railkit");
  railkit_bad.test.backend = "rdma";
  EXPECT_FALSE(renderProfile(railkit_bad));
  Profile backend_without_railkit = profileOf("rdma-shared", "jobset", "nccl-tests");
  backend_without_railkit.test.backend = "tcp";
  EXPECT_FALSE(renderProfile(backend_without_railkit));
  Profile shell = profileOf("rdma-shared", "jobset", "railkit");
  shell.test.max_bytes = "8G;reboot";
  EXPECT_FALSE(renderProfile(shell));
  Profile no_keys = profileOf("rdma-shared", "indexed-job", "nccl-tests");
  no_keys.ssh_private_key.clear();
  EXPECT_FALSE(renderProfile(no_keys));  // never a built-in key
}

TEST(RenderLaunchers, TrainerMpiPolicyHasALauncherAndNodes) {
  auto objects = rendered(profileOf("sriov", "trainjob", "nccl-tests"));
  const json* runtime = objectOfKind(objects, "TrainingRuntime");
  ASSERT_NE(runtime, nullptr);
  const json& mpi = (*runtime)["spec"]["mlPolicy"]["mpi"];
  EXPECT_EQ(mpi["mpiImplementation"], "OpenMPI");
  EXPECT_EQ(mpi["numProcPerNode"], 8);
  EXPECT_EQ(mpi["runLauncherAsNode"], false);
  const json& spec = (*runtime)["spec"]["template"]["spec"];
  EXPECT_EQ(spec["successPolicy"]["targetReplicatedJobs"], json::array({"launcher"}));
  std::map<std::string, const json*> jobs;
  for (const auto& job : spec["replicatedJobs"]) jobs[job["name"]] = &job;
  ASSERT_TRUE(jobs.count("launcher") && jobs.count("node"));
  const json& launcher = (*jobs["launcher"])["template"]["spec"]["template"]["spec"]["containers"][0];
  const json& node = (*jobs["node"])["template"]["spec"]["template"]["spec"]["containers"][0];
  EXPECT_EQ(launcher["name"], "node");
  EXPECT_EQ(node["name"], "node");
  std::string launch = scriptOf(launcher);
  EXPECT_NE(launch.find("install -m 600 /tmp/mpi-keys/id_rsa /root/.ssh/id_rsa"), std::string::npos);
  EXPECT_NE(launch.find("railkit wait-dns --hostfile /etc/mpi/hostfile"), std::string::npos);
  EXPECT_NE(launch.find("exec all_reduce_perf"), std::string::npos);
  EXPECT_EQ(launch.find("railkit_env=$(railkit env --ctrl-if eth0 --data-if net1,net2 --check) || exit 1\n"),
            std::string::npos);  // the launcher has no RDMA: only the ranks compute it
  EXPECT_EQ(node["readinessProbe"]["tcpSocket"]["port"], 22);
  std::string serve = scriptOf(node);
  EXPECT_TRUE(startsWith(serve, kPrelude));
  // sshd reads a 0600 copy of the Secret's authorized_keys, StrictModes on.
  EXPECT_NE(serve.find("install -m 600 /tmp/mpi-keys/authorized_keys /run/railkit-ssh/authorized_keys\n"
                       "exec /usr/sbin/sshd -De -o AuthorizedKeysFile=/run/railkit-ssh/authorized_keys\n"),
            std::string::npos)
      << serve;
  EXPECT_EQ(serve.find("StrictModes"), std::string::npos);
}

// 3. perftest: rank 0 serves, rank 1 connects to rank 0's name, both under
// timeout, on the device railkit env found in the pod.
TEST(RenderLaunchers, PerftestIsOneServerAndOneClient) {
  auto objects = rendered(profileOf("sriov", "indexed-job", "perftest"));
  std::string script = scriptOf(podSpecOf(*objectOfKind(objects, "Job"))["containers"][0]);
  EXPECT_TRUE(startsWith(script, kPrelude));
  for (const char* needle :
       {"hca=${NCCL_IB_HCA:-${UCX_NET_DEVICES:-}}", "set -- -d \"$device\" -i \"$port\" --report_gbits -a -F",
        "-x \"$NCCL_IB_GID_INDEX\"",
        "if [ \"${RANK:-${PET_NODE_RANK:-}}\" = 0 ]; then exec timeout 600 ib_write_bw \"$@\"; fi",
        "echo nccl-check-0.nccl-check >/tmp/railkit-server",
        "if timeout \"$left\" ib_write_bw \"$@\" nccl-check-0.nccl-check; then exit 0; fi"})
    EXPECT_NE(script.find(needle), std::string::npos) << needle << "\n" << script;
  EXPECT_EQ(script.find("mlx5_0"), std::string::npos);  // no host device name

  Profile three = profileOf("sriov", "indexed-job", "perftest");
  three.nodes = 3;
  auto refused = renderProfile(three);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("2 nodes"), std::string::npos);

  // Under an MPIJob: two ranks, one per worker; the server is the first host.
  auto mpi = rendered(profileOf("sriov", "mpijob", "perftest"));
  std::string launch =
      scriptOf(objectOfKind(mpi, "MPIJob")
                   ->at("spec")["mpiReplicaSpecs"]["Launcher"]["template"]["spec"]["containers"][0]);
  EXPECT_NE(launch.find("-np 2 --map-by ppr:1:node"), std::string::npos) << launch;
  EXPECT_NE(launch.find("-x RAILKIT_PERFTEST_SERVER=\"$server\""), std::string::npos);
  EXPECT_NE(launch.find("bash -c 'RANK=$OMPI_COMM_WORLD_RANK\n"), std::string::npos);
}

// 4. MPIJob: ssh that accepts fresh pods, /run/sshd, port 2222 with
// hostNetwork, MPI on the control interface as the pod names it.
TEST(RenderLaunchers, MpiJobSshAndInterfaces) {
  for (const char* mode : {"rdma-shared", "host-network"}) {
    Profile profile = profileOf(mode, "mpijob", "nccl-tests");
    profile.control_interface = "ens9f0";
    auto objects = rendered(profile);
    const json& replicas = objectOfKind(objects, "MPIJob")->at("spec")["mpiReplicaSpecs"];
    std::string launch = scriptOf(replicas["Launcher"]["template"]["spec"]["containers"][0]);
    std::string worker = scriptOf(replicas["Worker"]["template"]["spec"]["containers"][0]);
    bool host = std::string(mode) == "host-network";
    std::string rsh =
        host ? "--mca plm_rsh_args \"-p 2222 -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null"
             : "--mca plm_rsh_args \"-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null";
    EXPECT_NE(launch.find(rsh), std::string::npos) << launch;
    EXPECT_NE(launch.find("--mca btl_tcp_if_include ens9f0"), std::string::npos);
    EXPECT_NE(launch.find("--mca oob_tcp_if_include ens9f0"), std::string::npos);
    EXPECT_EQ(launch.find("eth0"), std::string::npos) << launch;
    std::string data = host ? "ens1f0,ens2f0" : "net1,net2";
    EXPECT_NE(launch.find("railkit env --ctrl-if ens9f0 --data-if " + data + " --check"), std::string::npos)
        << launch;
    EXPECT_TRUE(
        startsWith(launch, "railkit wait-dns --hostfile /etc/mpi/hostfile --timeout 600 || exit 3\n"));
    std::string sshd =
        "mkdir -p /run/sshd /run/railkit-ssh\nchmod 700 /run/railkit-ssh\n"
        "install -m 600 /root/.ssh/authorized_keys /run/railkit-ssh/authorized_keys\n"
        "exec /usr/sbin/sshd -De -o AuthorizedKeysFile=/run/railkit-ssh/authorized_keys";
    std::string serve = host ? sshd + " -p 2222\n" : sshd + "\n";
    EXPECT_NE(worker.find(serve), std::string::npos) << worker;
    EXPECT_TRUE(
        startsWith(worker, "railkit_env=$(railkit env --ctrl-if ens9f0 --data-if " + data + " --check)"));
    // Static HCA names only where the pod has the host's devices.
    const json& worker_container = replicas["Worker"]["template"]["spec"]["containers"][0];
    EXPECT_EQ(envOf(worker_container, "NCCL_IB_HCA").has_value(), host) << mode;
    // The launcher pod has no RDMA and no NCCL env of its own.
    EXPECT_FALSE(replicas["Launcher"]["template"]["spec"]["containers"][0].contains("env"));
  }
  // railkit bench under mpirun: the rendezvous on the first host.
  auto bench = rendered(profileOf("rdma-shared", "mpijob", "railkit"));
  std::string launch =
      scriptOf(objectOfKind(bench, "MPIJob")
                   ->at("spec")["mpiReplicaSpecs"]["Launcher"]["template"]["spec"]["containers"][0]);
  EXPECT_NE(launch.find("-x MASTER_ADDR=\"$master\" -x MASTER_PORT=29500"), std::string::npos) << launch;
  EXPECT_NE(launch.find("exec railkit bench all_reduce --backend nccl --data-if =net1,net2 --ctrl-if =eth0"),
            std::string::npos);
}

// Every pod script of every launcher x tool x mode is valid shell, and the
// YAML carries it unchanged.
TEST(RenderLaunchers, EveryScriptParsesAsShell) {
  if (access("/bin/bash", X_OK) != 0) GTEST_SKIP() << "no /bin/bash to check the scripts with";
  auto dir = std::filesystem::temp_directory_path() / ("railkit-render-sh-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  int scripts = 0;
  for (const char* mode : modeNames())
    for (const char* launcher : kLaunchers)
      for (const char* tool : {"nccl-tests", "railkit", "perftest", "validate"}) {
        Profile profile = profileOf(mode, launcher, tool);
        auto objects = rendered(profile);
        auto manifest = loadManifest(toYaml(objects), "rendered.yaml");
        ASSERT_TRUE(manifest) << manifest.error().message;
        std::vector<const json*> containers;
        for (const auto& object : objects) collectContainers(object.object, containers);
        for (const json* container : containers) {
          if (!container->contains("command") || (*container)["command"][0] != "/bin/bash") continue;
          std::string script = (*container)["command"][2];
          // The script and each rank's own `bash -c '...'` inside it.
          std::vector<std::string> bodies = {script};
          for (size_t at = script.find("bash -c '"); at != std::string::npos;
               at = script.find("bash -c '", at + 1)) {
            size_t end = script.find('\'', at + 9);
            ASSERT_NE(end, std::string::npos) << script;
            bodies.push_back(script.substr(at + 9, end - at - 9));
          }
          for (const std::string& body : bodies) {
            auto file = dir / ("s" + std::to_string(scripts++) + ".sh");
            std::ofstream(file) << body;
            auto check = railkit::testing::runProcess(
                railkit::testing::ProcessSpec({"/bin/bash", "-n", file.string()}));
            const std::string& errors = check.err;
            EXPECT_EQ(check.status, 0) << mode << " " << launcher << " " << tool << ": " << errors << "\n"
                                       << body;
          }
        }
        // The emitted YAML holds the same commands.
        std::vector<std::string> from_yaml;
        for (const Object& object : (*manifest)->objects)
          forEachPodSpec(object, [&](const PodSpecView& view) {
            for (const YamlNode& item : view.spec->get("containers")->items)
              if (const YamlNode* command = item.get("command");
                  command != nullptr && command->items.size() == 3)
                from_yaml.push_back(command->items[2].text());
          });
        std::vector<std::string> from_json;
        for (const json* container : containers)
          if (container->contains("command") && (*container)["command"].size() == 3)
            from_json.push_back((*container)["command"][2]);
        EXPECT_EQ(from_yaml, from_json) << mode << " " << launcher << " " << tool;
      }
  std::filesystem::remove_all(dir);
  // 21 pod scripts and 7 rank wrappers (mpijob x4, trainjob mpi, indexed-job and jobset mpi) per mode,
  // and the Volcano Job's 8 (master and worker task x 4 tools) with 2 wrappers (nccl-tests in each task).
  EXPECT_EQ(scripts, static_cast<int>(railkit::k8s::render::modeNames().size()) * (21 + 7 + 8 + 2));
}

// A mode's own lines (GKE's NCCL env profile) run after railkit env, in the
// pod and in each MPI rank.
TEST(RenderLaunchers, ModePreludeRunsInEveryRank) {
  Profile profile = profileOf("gke-tcpxo", "jobset", "nccl-tests");
  ASSERT_TRUE(finishProfile(profile));
  PodDecoration decoration;
  decoration.pod_data_interfaces = {"eth1", "eth2"};
  decoration.command_prelude = {"source /usr/local/nvidia/lib64/nccl-env-profile.sh"};
  PodNetwork net = podNetwork(profile, decoration);
  EXPECT_FALSE(net.rdma_expected);  // TCPXO: no RDMA device to check for
  EXPECT_EQ(envPrelude(net),
            "railkit_env=$(railkit env --ctrl-if eth0 --data-if eth1,eth2) || exit 1\neval \"$railkit_env\"\n"
            "source /usr/local/nvidia/lib64/nccl-env-profile.sh\n");
  EXPECT_EQ(perRankWrapper(net, "all_reduce_perf"),
            "bash -c 'railkit_env=$(railkit env --ctrl-if eth0 --data-if eth1,eth2) || exit 1; eval "
            "\"$railkit_env\"; "
            "source /usr/local/nvidia/lib64/nccl-env-profile.sh; exec all_reduce_perf'");
}

// The key pair render makes is one OpenSSH reads: ssh-keygen derives the
// same public key from the private one.
TEST(RenderLaunchers, SshKeyPairIsOpenSshs) {
  auto pair = newSshKeyPair("railkit-test");
  ASSERT_TRUE(pair) << pair.error().message;
  EXPECT_TRUE(startsWith(pair->private_pem, "-----BEGIN EC PRIVATE KEY-----\n"));
  EXPECT_TRUE(startsWith(pair->authorized_line, "ecdsa-sha2-nistp256 AAAA"));
  EXPECT_NE(newSshKeyPair("x")->private_pem, pair->private_pem);
  if (access("/usr/bin/ssh-keygen", X_OK) != 0) GTEST_SKIP() << "no ssh-keygen to cross-check the key with";
  auto dir = std::filesystem::temp_directory_path() / ("railkit-ssh-key-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  auto key = dir / "id";
  std::ofstream(key) << pair->private_pem;
  std::filesystem::permissions(key, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  auto keygen = railkit::testing::runProcess(
      railkit::testing::ProcessSpec({"/usr/bin/ssh-keygen", "-y", "-f", key.string()}));
  EXPECT_EQ(keygen.status, 0) << keygen.err;
  std::string derived = keygen.out.substr(0, keygen.out.find('\n'));
  std::filesystem::remove_all(dir);
  while (!derived.empty() && derived.back() == '\n') derived.pop_back();
  std::string line = pair->authorized_line;
  EXPECT_EQ(derived.substr(0, derived.find(' ', 20)), line.substr(0, line.find(' ', 20)));
}

}  // namespace
}  // namespace railkit::k8s::render
