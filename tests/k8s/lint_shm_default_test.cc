// shm-default fires where NCCL ranks run, and ranks run on GPUs: not on an
// mpirun master, not on a test pod that only gets a VF; still on workers with
// GPUs, whatever shape their job has.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "k8s/lint/pod_facts.h"
#include "lint_helpers.h"
#include "support/test_support.h"

namespace railkit::k8s {
namespace {

using testing::lintText;

std::string fixture(const std::string& name) {
  std::ifstream in(railkit::testing::sourceDir() / "tests" / "k8s" / "fixtures" / "real" / name,
                   std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  EXPECT_FALSE(text.str().empty()) << name;
  return text.str();
}

std::vector<Finding> shm(const std::string& text) {
  std::vector<Finding> out;
  for (const Finding& finding : lintText(text))
    if (finding.id == "shm-default") out.push_back(finding);
  return out;
}

void replaceAll(std::string& text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
}

// OKE's Volcano nccl-tests job: the mpimaster task runs mpirun and
// all_reduce_perf with -x NCCL_..., no GPU and no /dev/shm volume; the
// mpiworker task has 8 GPUs and /dev/shm in memory. Nothing to say.
TEST(K8sLintShmDefault, VolcanoMpiMasterIsNoRank) {
  std::string text = fixture("oci-oke-h100-volcano-mpi-nccl-test.yaml");
  EXPECT_TRUE(shm(text).empty());
  // Without the workers' memory /dev/shm, the ranks are the ones blamed.
  replaceAll(text, "              - mountPath: /dev/shm\n                name: shm\n", "");
  auto workers = shm(text);
  ASSERT_EQ(workers.size(), 1u);
  EXPECT_EQ(workers[0].path, "spec.tasks[1].template.spec.containers[0].volumeMounts");
  EXPECT_EQ(workers[0].object, "Job/nccl-allreduce-job0");
  // A master with GPUs of its own runs ranks too (mpirun puts some there).
  std::string master = fixture("oci-oke-h100-volcano-mpi-nccl-test.yaml");
  master.replace(master.find("                  cpu: 2\n"), 0, "                  nvidia.com/gpu: 8\n");
  auto ranks = shm(master);
  ASSERT_EQ(ranks.size(), 1u);
  EXPECT_EQ(ranks[0].path, "spec.tasks[0].template.spec.containers[0].volumeMounts");
}

// The ranks of a Volcano MPI job without RDMA devices or NCCL variables of
// their own: 8 GPUs each, started by the master's mpirun.
TEST(K8sLintShmDefault, WorkersOfAnMpirunMasterInTheSameJob) {
  std::string text = fixture("oci-oke-h100-volcano-mpi-nccl-test.yaml");
  replaceAll(text, "              - mountPath: /dev/shm\n                name: shm\n", "");
  // No SR-IOV attachment: nothing says RDMA or NCCL in the workers' own spec.
  text.replace(text.find("k8s.v1.cni.cncf.io/networks"), 27, "example.com/note");
  auto workers = shm(text);
  ASSERT_EQ(workers.size(), 1u) << text;
  EXPECT_NE(workers[0].message.find("on 8 GPUs (ranks started by mpirun in "
                                    "spec.tasks[0].template.spec.containers[0])"),
            std::string::npos)
      << workers[0].message;
}

// The SR-IOV DRA driver's demo pod gets one VF through a claim of the
// driver's class and a Multus network, and runs a toolbox: no GPU, no rank,
// and no RDMA the class promises (so no ipc-lock-missing either). Naming
// NCCL gives it no GPU: the class is a NIC's. A class lint does not know
// keeps the old reading when the pod names NCCL: the claim may hold its GPU.
TEST(K8sLintShmDefault, VfClaimWithoutGpuIsNoRank) {
  std::string text = fixture("dra-driver-sriov-multus-single-vf.yaml");
  EXPECT_TRUE(shm(text).empty());
  for (const Finding& finding : lintText(text)) {
    EXPECT_NE(finding.id, "ipc-lock-missing") << finding.message;
    EXPECT_NE(finding.id, "dra-claim-unknown") << finding.message;
  }
  text.replace(text.find("        resources:\n          claims:"), 0,
               "        env:\n        - {name: NCCL_DEBUG, value: INFO}\n");
  EXPECT_TRUE(shm(text).empty());
  replaceAll(text, "sriovnetwork.k8snetworkplumbingwg.io", "vf.example.com");
  EXPECT_EQ(shm(text).size(), 1u);
  // ...unless it only launches: mpirun with no GPU of its own.
  text.replace(text.find("- sleep INF"), 11, "- mpirun -np 2 all_reduce_perf");
  EXPECT_TRUE(shm(text).empty());
}

// The first MPIJob shape: one template for the launcher and every worker.
// With `gpus` and `gpusPerNode` instead of `replicas` and a GPU limit, each
// worker gets the smaller of the two, as mpi-operator wrote it; without the
// per-node count (the operator's flag) nothing is guessed.
TEST(K8sLintShmDefault, MpiJobV1alpha1Workers) {
  std::string text = fixture("mpi-operator-v1alpha1-tf-benchmarks-custom.yaml");
  auto custom = shm(text);
  ASSERT_EQ(custom.size(), 1u);
  EXPECT_EQ(custom[0].path, "spec.template.spec.containers[0].volumeMounts");
  EXPECT_NE(custom[0].message.find("on 4 GPUs (an MPIJob)"), std::string::npos) << custom[0].message;
  text.erase(text.find("        resources:"));
  replaceAll(text, "  replicas: 4\n", "  gpus: 16\n  gpusPerNode: 8\n");
  auto spread = shm(text);
  ASSERT_EQ(spread.size(), 1u) << text;
  EXPECT_NE(spread[0].message.find("on 8 GPUs"), std::string::npos) << spread[0].message;
  replaceAll(text, "  gpusPerNode: 8\n", "  slotsPerWorker: 8\n");
  EXPECT_TRUE(shm(text).empty());
  // An MPI program that is no NCCL framework on the same GPUs: left alone.
  std::string other = fixture("mpi-operator-v1alpha1-tf-benchmarks-custom.yaml");
  replaceAll(other, "mpioperator/tensorflow-benchmarks:latest", "ghcr.io/nvidia/k8s-samples:nvbandwidth");
  EXPECT_TRUE(shm(other).empty());
}

// NVSentinel's preflight job sets TCPXO's NCCL variables on a busybox
// container with no GPU for a webhook to copy: NCCL cannot run there.
TEST(K8sLintShmDefault, NcclVariablesWithoutGpuAreNoRank) {
  std::string text = fixture("nvsentinel-tcpxo-volcano-job.yaml");
  EXPECT_TRUE(shm(text).empty());
  text.replace(text.find("              env:\n"), 0,
               "              resources: {limits: {nvidia.com/gpu: 8}}\n");
  EXPECT_EQ(shm(text).size(), 1u);
}

const char* kGpuPod = R"(apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
  - name: c
    image: img
    command: [torchrun, --nproc_per_node=2, train.py]
    resources:
      limits: {RESOURCE: 2}
)";

// GPUs come from any GPU resource or from a DRA claim of a GPU class.
TEST(K8sLintShmDefault, GpusFromAnyResourceOrClaim) {
  for (const char* resource :
       {"nvidia.com/gpu", "nvidia.com/mig-3g.40gb", "amd.com/gpu", "gpu.intel.com/xe"}) {
    std::string text = kGpuPod;
    text.replace(text.find("RESOURCE"), 8, resource);
    EXPECT_EQ(shm(text).size(), 1u) << resource;
  }
  std::string cpu = kGpuPod;
  cpu.replace(cpu.find("RESOURCE"), 8, "cpu");
  EXPECT_TRUE(shm(cpu).empty());
  const std::string claimed = R"(apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: two-gpus}
spec:
  spec:
    devices:
      requests:
      - name: gpus
        exactly: {deviceClassName: gpu.nvidia.com, count: 2}
---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  resourceClaims:
  - {name: gpus, resourceClaimTemplateName: two-gpus}
  containers:
  - name: c
    image: img
    command: [torchrun, --nproc_per_node=2, train.py]
    resources:
      claims: [{name: gpus}]
)";
  auto found = shm(claimed);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].message.find("runs NCCL"), std::string::npos) << found[0].message;
}

TEST(K8sLintShmDefault, MpiLauncherWords) {
  auto starts = [](const std::string& command) {
    ContainerFacts container;
    container.command = command;
    return startsMpiRanks(container);
  };
  EXPECT_TRUE(starts("mpirun -np 2 a.out"));
  EXPECT_TRUE(starts("/bin/bash -c set -e; /opt/openmpi/bin/mpirun --allow-run-as-root x"));
  EXPECT_TRUE(starts("mpiexec.hydra -n 4 x"));
  EXPECT_TRUE(starts("horovodrun -np 4 python train.py"));
  EXPECT_TRUE(starts("time mpiexec --allow-run-as-root ./ex13"));
  EXPECT_FALSE(starts("./mpirun_wrapper.sh"));
  EXPECT_FALSE(starts("sleep infinity"));
  EXPECT_FALSE(starts("my-mpirun x"));
}

}  // namespace
}  // namespace railkit::k8s
