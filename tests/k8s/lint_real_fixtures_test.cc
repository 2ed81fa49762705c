// Lint on real manifests (tests/k8s/fixtures/real, each with its source URL
// on its first line): official platform examples and user manifests that are
// right must lint clean of the classes that once raised false errors, and the
// mistakes they do carry must still be found.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "k8s/lint/lint.h"
#include "k8s/lint/pod_facts.h"
#include "k8s/schema.h"
#include "lint_helpers.h"
#include "support/test_support.h"

namespace railkit::k8s {
namespace {

using testing::problemIds;

std::string fixture(const std::string& name) {
  std::ifstream in(railkit::testing::sourceDir() / "tests" / "k8s" / "fixtures" / "real" / name,
                   std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  EXPECT_FALSE(text.str().empty()) << name;
  return text.str();
}

std::vector<Finding> lintFixture(const std::string& name, const SchemaSet* schemas = nullptr) {
  return testing::lintText(fixture(name), schemas);
}

std::vector<Finding> withId(const std::vector<Finding>& findings, const std::string& id) {
  std::vector<Finding> out;
  for (const Finding& finding : findings)
    if (finding.id == id) out.push_back(finding);
  return out;
}

// Env on the launcher plus -x: NCCL_SOCKET_IFNAME=net1 is compared with the
// workers' interfaces (eth0, net1), not the launcher's (eth0 only); HCOLL and
// UCC are off through the launcher's OMPI_MCA_ variables.
TEST(K8sLintReal, LauncherEnvForwardedWithXLintsClean) {
  auto findings = lintFixture("kubernetes-recipes-openmpi-control-plane-mpijob.yaml");
  EXPECT_EQ(problemIds(findings), std::multiset<std::string>{}) << findings.size();
  EXPECT_TRUE(withId(findings, "ompi-coll-conflict").empty());
}

// The same job with the workers' attachment named otherwise: the forwarded
// value now selects nothing where NCCL runs, and the launcher is blamed.
TEST(K8sLintReal, ForwardedSocketIfnameMissingOnWorkers) {
  std::string text = fixture("kubernetes-recipes-openmpi-control-plane-mpijob.yaml");
  text.replace(text.find("sriov-roce@net1"), 15, "sriov-roce@rdma0");
  auto findings = withId(testing::lintText(text), "nccl-socket-ifname-mismatch");
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].path, "spec.mpiReplicaSpecs.Launcher.template.spec.containers[0].command");
  EXPECT_NE(findings[0].message.find("workers"), std::string::npos) << findings[0].message;
  EXPECT_NE(findings[0].message.find("rdma0"), std::string::npos) << findings[0].message;
}

// With runLauncherAsWorker the launcher runs a rank too: there net1 is
// missing (the launcher has eth0 only), while the workers still have it.
TEST(K8sLintReal, LauncherRunningARankIsCheckedToo) {
  std::string text = fixture("kubernetes-recipes-openmpi-control-plane-mpijob.yaml");
  text.replace(text.find("  slotsPerWorker: 2"), 0, "  runLauncherAsWorker: true\n");
  auto findings = withId(testing::lintText(text), "nccl-socket-ifname-mismatch");
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].path,
            "spec.mpiReplicaSpecs.Launcher.template.spec.containers[0].env.NCCL_SOCKET_IFNAME");
}

// HCOLL left on in the same job: the doctor's meaning of ompi-coll-conflict.
TEST(K8sLintReal, HcollLeftEnabledNextToNccl) {
  std::string text = fixture("kubernetes-recipes-openmpi-control-plane-mpijob.yaml");
  text.replace(text.find("--mca pml ob1"), 13, "--mca pml ob1 --mca coll_hcoll_enable 1");
  auto findings = withId(testing::lintText(text), "ompi-coll-conflict");
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].severity, Severity::kWarning);
  EXPECT_NE(findings[0].message.find("coll_hcoll_enable is 1"), std::string::npos) << findings[0].message;
}

// The same job with the page's HCOLL/UCC settings taken out: both unset
// (info); an `export` in the launcher's script counts like its env.
TEST(K8sLintReal, HcollUccUnsetAndExportedInScript) {
  std::string text = fixture("kubernetes-recipes-openmpi-control-plane-mpijob.yaml");
  for (size_t at; (at = text.find("OMPI_MCA_coll_")) != std::string::npos;)
    text.replace(at, 14, "OMPI_MCA_xcoll_");
  auto unset = withId(testing::lintText(text), "ompi-coll-conflict");
  ASSERT_EQ(unset.size(), 2u);
  for (const Finding& finding : unset) EXPECT_EQ(finding.severity, Severity::kInfo);
  text.replace(text.find("mpirun \\"), 0, "export OMPI_MCA_coll_hcoll_enable=0\n              ");
  auto exported = withId(testing::lintText(text), "ompi-coll-conflict");
  ASSERT_EQ(exported.size(), 1u);
  EXPECT_NE(exported[0].message.find("coll_ucc_enable is unset"), std::string::npos) << exported[0].message;
}

// GPUDirect-TCPXO: multi-NIC GKE pods whose NCCL speaks TCP through FasTrak.
TEST(K8sLintReal, GpudirectTcpxoIsNotRdma) {
  for (const char* name : {"gke-tcpxo-mpijob.yaml", "gke-tcpxo-pod.yaml"}) {
    auto findings = lintFixture(name);
    auto ids = problemIds(findings);
    EXPECT_EQ(ids.count("ipc-lock-missing"), 0u) << name;
    EXPECT_EQ(ids.count("nccl-socket-ifname-mismatch"), 0u) << name;
    EXPECT_EQ(ids.count("shm-default"), 0u) << name;
    EXPECT_TRUE(withId(findings, "ipc-lock-missing").empty()) << name;  // not even as info
  }
}

// TCPXO env with the NICs injected at admission: their names are not in the
// manifest, so NCCL_SOCKET_IFNAME=eth1,...,eth8 is not compared with eth0 alone.
TEST(K8sLintReal, TcpxoInterfacesInjectedByWebhookAreUnknown) {
  auto findings = lintFixture("nvsentinel-tcpxo-volcano-job.yaml");
  EXPECT_TRUE(withId(findings, "nccl-socket-ifname-mismatch").empty());
  EXPECT_TRUE(withId(findings, "ipc-lock-missing").empty());
  // Without the TCPXO variables the same value names NICs this pod does not have.
  std::string text = fixture("nvsentinel-tcpxo-volcano-job.yaml");
  for (size_t at; (at = text.find("NCCL_FASTRAK_")) != std::string::npos;)
    text.replace(at, 13, "NCCL_OTHER_");
  EXPECT_EQ(withId(testing::lintText(text), "nccl-socket-ifname-mismatch").size(), 1u);
}

// The TCPXO launcher exports NCCL_SOCKET_IFNAME in its script and forwards
// it; a value the workers lack is found there too.
TEST(K8sLintReal, ExportedThenForwardedSocketIfname) {
  std::string text = fixture("gke-tcpxo-mpijob.yaml");
  EXPECT_TRUE(withId(testing::lintText(text), "nccl-socket-ifname-mismatch").empty());
  text.replace(text.find("export NCCL_SOCKET_IFNAME=eth0"), 30, "export NCCL_SOCKET_IFNAME=enp0");
  auto findings = withId(testing::lintText(text), "nccl-socket-ifname-mismatch");
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_NE(findings[0].message.find("enp0"), std::string::npos) << findings[0].message;
}

// A CPU-only torchrun job (gloo) is not an NCCL workload: no /dev/shm advice.
TEST(K8sLintReal, CpuTorchrunIsNotNccl) {
  EXPECT_EQ(problemIds(lintFixture("itwinai-torchrun-cpu-pytorchjob.yaml")), std::multiset<std::string>{});
}

// EKS EFA without IPC_LOCK: the platform's memlock is unlimited; said, not failed.
// The bare $VAR placeholders of the envsubst template are still errors.
TEST(K8sLintReal, EksEfaMemlockAndBarePlaceholders) {
  auto findings = lintFixture("aws-fsdp-efa-pytorchjob.yaml");
  auto ipc = withId(findings, "ipc-lock-missing");
  ASSERT_EQ(ipc.size(), 1u);
  EXPECT_EQ(ipc[0].severity, Severity::kInfo);
  EXPECT_NE(ipc[0].message.find("EKS"), std::string::npos) << ipc[0].message;
  EXPECT_NE(ipc[0].message.find("memlock unlimited"), std::string::npos) << ipc[0].message;
  std::set<std::string> placeholder_paths;
  for (const Finding& finding : withId(findings, "unexpanded-placeholder"))
    placeholder_paths.insert(finding.path);
  const std::string container = "spec.pytorchReplicaSpecs.Worker.template.spec.containers[0]";
  for (const std::string& path : {std::string("spec.pytorchReplicaSpecs.Worker.replicas"),
                                  container + ".image", container + ".resources.limits.nvidia.com/gpu",
                                  container + ".resources.requests.vpc.amazonaws.com/efa"})
    EXPECT_EQ(placeholder_paths.count(path), 1u) << path;
  // --nproc_per_node=$GPU_PER_NODE is shell in command: not reported.
  for (const std::string& path : placeholder_paths)
    EXPECT_EQ(path.find(".command"), std::string::npos) << path;
}

// CoreWeave's own H100 job: rdma/ib without IPC_LOCK is right there (info);
// the same pod on nodes not marked as CoreWeave's is an error.
TEST(K8sLintReal, CoreweaveMemlockIsPlatformSet) {
  auto findings = lintFixture("coreweave-h100-mpijob.yaml");
  EXPECT_EQ(problemIds(findings), std::multiset<std::string>{});
  auto ipc = withId(findings, "ipc-lock-missing");
  ASSERT_EQ(ipc.size(), 1u);
  EXPECT_EQ(ipc[0].severity, Severity::kInfo);
  EXPECT_NE(ipc[0].message.find("CoreWeave"), std::string::npos) << ipc[0].message;
  std::string elsewhere = fixture("coreweave-h100-mpijob.yaml");
  for (size_t at; (at = elsewhere.find("coreweave")) != std::string::npos;)
    elsewhere.replace(at, 9, "example");
  auto moved = withId(testing::lintText(elsewhere), "ipc-lock-missing");
  ASSERT_EQ(moved.size(), 1u);
  EXPECT_EQ(moved[0].severity, Severity::kError);
}

// The CRD's quantity pattern rejects the placeholder; the template rendered
// with GPU_PER_NODE unset (envsubst writes nothing) leaves a null quantity,
// which the API server drops: the job would start without GPUs.
TEST(K8sLintReal, QuantityPatternAndNullQuantityInCustomResource) {
  RAILKIT_REQUIRE_SHARED();
  auto schemas = SchemaSet::load((railkit::testing::sharedDir() / "schemas").string());
  ASSERT_TRUE(schemas) << schemas.error().message;
  auto findings = withId(lintFixture("aws-fsdp-efa-pytorchjob.yaml", &*schemas), "schema");
  bool pattern = false;
  for (const Finding& finding : findings)
    if (finding.path.find("resources.limits.nvidia.com/gpu") != std::string::npos &&
        finding.message.find("not a quantity") != std::string::npos)
      pattern = true;
  EXPECT_TRUE(pattern);

  std::string rendered = fixture("aws-fsdp-efa-pytorchjob.yaml");
  for (size_t at; (at = rendered.find("$GPU_PER_NODE")) != std::string::npos;) rendered.replace(at, 13, "");
  auto null_findings = withId(testing::lintText(rendered, &*schemas), "schema");
  size_t nulls = 0;
  for (const Finding& finding : null_findings)
    if (finding.message.find("no value (null)") != std::string::npos) {
      ++nulls;
      EXPECT_EQ(finding.severity, Severity::kError);
      EXPECT_NE(finding.path.find("nvidia.com/gpu"), std::string::npos) << finding.path;
      EXPECT_GT(*finding.line, 0);
    }
  EXPECT_EQ(nulls, 2u);  // requests and limits

  // A built-in Pod: the null Quantity decodes as 0, no GPU either.
  std::string pod = fixture("gke-tcpxo-pod.yaml");
  pod.replace(pod.find("nvidia.com/gpu: 8"), 17, "nvidia.com/gpu:");
  size_t pod_nulls = 0;
  for (const Finding& finding : withId(testing::lintText(pod, &*schemas), "schema"))
    if (finding.message.find("no value (null)") != std::string::npos) {
      ++pod_nulls;
      EXPECT_EQ(finding.path, "spec.containers[1].resources.limits.nvidia.com/gpu");
    }
  EXPECT_EQ(pod_nulls, 1u);
}

// --- DRA claims are placed by what they give --------------------------------

// NVIDIA's IMEX demo: the workers claim a ComputeDomain's IMEX channel and
// take 2 GPUs from the device plugin; nothing is a NIC or RDMA. No
// ipc-lock-missing (not even info), no "extra network interfaces", and the
// channel is placed through the ComputeDomain that names its template.
TEST(K8sLintReal, ImexChannelClaimIsNeitherNicNorRdma) {
  auto findings = lintFixture("nvidia-dra-imex-nvbandwidth-mpijob.yaml");
  EXPECT_TRUE(withId(findings, "ipc-lock-missing").empty());
  EXPECT_TRUE(withId(findings, "ompi-btl-if-unset").empty());
  EXPECT_TRUE(withId(findings, "dra-claim-unknown").empty());
  EXPECT_EQ(problemIds(findings), std::multiset<std::string>{});
}

// The same job linted without its ComputeDomain: the claim's template is not
// in the input, which is said at info level; nothing is guessed from it.
TEST(K8sLintReal, ClaimOutsideTheInputIsSaidNotGuessed) {
  std::string text = fixture("nvidia-dra-imex-nvbandwidth-mpijob.yaml");
  text.replace(text.find("kind: ComputeDomain"), 19, "kind: OtherDomain");
  auto findings = testing::lintText(text);
  auto unknown = withId(findings, "dra-claim-unknown");
  ASSERT_EQ(unknown.size(), 1u);
  EXPECT_EQ(unknown[0].severity, Severity::kInfo);
  EXPECT_EQ(unknown[0].path, "spec.mpiReplicaSpecs.Worker.template.spec.resourceClaims[0]");
  EXPECT_NE(unknown[0].message.find("nvbandwidth-test-compute-domain-1-channel"), std::string::npos)
      << unknown[0].message;
  EXPECT_TRUE(withId(findings, "ipc-lock-missing").empty());
  EXPECT_TRUE(withId(findings, "ompi-btl-if-unset").empty());
}

// dranet's MPIJob: the DeviceClass selects dra.net RDMA NICs and the claim's
// config names the NIC dranet0. The NIC is an extra interface of the
// workers (ompi-btl-if-unset, right: mpirun pins nothing) and RDMA: a worker
// without IPC_LOCK is an error.
TEST(K8sLintReal, DranetRdmaNicClaimIsRdmaAndAnInterface) {
  auto findings = lintFixture("dranet-mpi-operator-rdma-nic.yaml");
  EXPECT_TRUE(withId(findings, "dra-claim-unknown").empty());
  EXPECT_TRUE(withId(findings, "ipc-lock-missing").empty());
  EXPECT_EQ(withId(findings, "ompi-btl-if-unset").size(), 1u);
  std::string text = fixture("dranet-mpi-operator-rdma-nic.yaml");
  size_t worker = text.find("name: mpi-worker\n");
  text.replace(text.find("add: [\"IPC_LOCK\"]", worker), 17, "add: [\"NET_RAW\"]");
  auto ipc = withId(testing::lintText(text), "ipc-lock-missing");
  ASSERT_EQ(ipc.size(), 1u);
  EXPECT_EQ(ipc[0].severity, Severity::kError);
  EXPECT_EQ(ipc[0].path.rfind("spec.mpiReplicaSpecs.Worker.", 0), 0u) << ipc[0].path;
}

std::string withWorkerSocketIfname(std::string text, const std::string& value) {
  const std::string anchor = "            name: mpi-worker\n";
  text.replace(
      text.find(anchor), anchor.size(),
      anchor + "            env:\n            - {name: NCCL_SOCKET_IFNAME, value: \"" + value + "\"}\n");
  return text;
}

// NCCL_SOCKET_IFNAME=net1 in a pod whose extra NIC the claim names dranet0:
// found (it passed silently before), on the worker and where the launcher
// forwards it with -x. dranet0 itself passes.
TEST(K8sLintReal, SocketIfnameComparedWithDraNicNames) {
  std::string text = fixture("dranet-mpi-operator-rdma-nic.yaml");
  auto wrong = withId(testing::lintText(withWorkerSocketIfname(text, "net1")), "nccl-socket-ifname-mismatch");
  ASSERT_EQ(wrong.size(), 1u);
  EXPECT_EQ(wrong[0].path, "spec.mpiReplicaSpecs.Worker.template.spec.containers[0].env.NCCL_SOCKET_IFNAME");
  EXPECT_NE(wrong[0].message.find("eth0, dranet0"), std::string::npos) << wrong[0].message;
  EXPECT_TRUE(
      withId(testing::lintText(withWorkerSocketIfname(text, "dranet0")), "nccl-socket-ifname-mismatch")
          .empty());
  std::string forwarded = text;
  forwarded.replace(forwarded.find("-x LD_LIBRARY_PATH"), 0, "-x NCCL_SOCKET_IFNAME=net1 ");
  auto launcher = withId(testing::lintText(forwarded), "nccl-socket-ifname-mismatch");
  ASSERT_EQ(launcher.size(), 1u);
  EXPECT_NE(launcher[0].message.find("workers"), std::string::npos) << launcher[0].message;
}

// Without the rename config, dranet keeps the host name the selector pins
// (gpu2rdma0); with neither, the NIC's name is unknown and not compared.
TEST(K8sLintReal, DraNicNameFromPinnedIfNameOrUnknown) {
  std::string text = withWorkerSocketIfname(fixture("dranet-mpi-operator-rdma-nic.yaml"), "net1");
  text.replace(text.find("driver: dra.net"), 15, "driver: other.example.com");
  auto pinned = withId(testing::lintText(text), "nccl-socket-ifname-mismatch");
  ASSERT_EQ(pinned.size(), 1u);
  EXPECT_NE(pinned[0].message.find("eth0, gpu2rdma0"), std::string::npos) << pinned[0].message;
  text.replace(text.find("ifName == \"gpu2rdma0\""), 21, "numaNode == 0");
  EXPECT_TRUE(withId(testing::lintText(text), "nccl-socket-ifname-mismatch").empty());
}

// --- rules that missed real mistakes ----------------------------------------

// A typo in the limits' resource name: rdma/... requested with no limit.
TEST(K8sLintReal, ExtendedResourceRequestedWithoutLimit) {
  auto findings = lintFixture("network-operator-rdma-pod-limits-typo.yaml");
  auto missing = withId(findings, "extended-resource-limit-missing");
  ASSERT_EQ(missing.size(), 1u);
  EXPECT_EQ(missing[0].severity, Severity::kError);
  EXPECT_EQ(missing[0].path, "spec.containers[0].resources.requests.rdma/rdma_shared_device_a");
  EXPECT_NE(missing[0].message.find("limits has edma/rdma_shared_device_a"), std::string::npos)
      << missing[0].message;
  EXPECT_EQ(missing[0].fix, "rename limits' edma/rdma_shared_device_a to rdma/rdma_shared_device_a");
  // Upstream's spelling: nothing to say.
  std::string fixed = fixture("network-operator-rdma-pod-limits-typo.yaml");
  fixed.replace(fixed.find("        edma/"), 13, "        rdma/");
  EXPECT_TRUE(withId(testing::lintText(fixed), "extended-resource-limit-missing").empty());
}

// aws-samples' EFA job leaves `<account>.dkr.ecr.<region>.amazonaws.com/<image>:<tag>`
// in both images: not a valid reference.
TEST(K8sLintReal, AngleBracketPlaceholderInImage) {
  auto findings = withId(lintFixture("aws-efa-nccl-tests-image-placeholder.yaml"), "unexpanded-placeholder");
  std::set<std::string> paths;
  for (const Finding& finding : findings) {
    paths.insert(finding.path);
    EXPECT_NE(finding.message.find("<account>"), std::string::npos) << finding.message;
  }
  EXPECT_EQ(paths, (std::set<std::string>{"spec.mpiReplicaSpecs.Launcher.template.spec.containers[0].image",
                                          "spec.mpiReplicaSpecs.Worker.template.spec.containers[0].image"}));
  std::string replaced = fixture("aws-efa-nccl-tests-image-placeholder.yaml");
  const std::string aws = "<account>.dkr.ecr.<region>.amazonaws.com/<image>:<tag>";
  for (size_t at; (at = replaced.find(aws)) != std::string::npos;)
    replaced.replace(at, aws.size(), "<YOUR-CONTAINER>:<VERSION>");
  auto yours = withId(testing::lintText(replaced), "unexpanded-placeholder");
  ASSERT_EQ(yours.size(), 2u);
  EXPECT_NE(yours[0].message.find("<YOUR-CONTAINER>"), std::string::npos) << yours[0].message;
  for (size_t at; (at = replaced.find("<YOUR-CONTAINER>:<VERSION>")) != std::string::npos;)
    replaced.replace(at, 26, "public.ecr.aws/hpc-cloud/nccl-tests:latest");
  EXPECT_TRUE(withId(testing::lintText(replaced), "unexpanded-placeholder").empty());
}

// Kubeflow Trainer's torchtune runtime: `tune run ... full_finetune_distributed`
// (torchrun underneath) on 2 GPUs with the default /dev/shm. Decided from the
// GPUs and the distributed launch, not from the launcher's name.
TEST(K8sLintReal, DistributedTrainingOnTwoGpusNeedsShm) {
  auto shm = withId(lintFixture("torchtune-qwen2.5-runtime.yaml"), "shm-default");
  ASSERT_EQ(shm.size(), 1u);
  EXPECT_EQ(shm[0].severity, Severity::kWarning);
  EXPECT_NE(shm[0].message.find("distributed training on 2 GPUs"), std::string::npos) << shm[0].message;
  std::string text = fixture("torchtune-qwen2.5-runtime.yaml");
  std::string one_gpu = text;
  one_gpu.replace(one_gpu.find("nvidia.com/gpu: 2"), 17, "nvidia.com/gpu: 1");
  EXPECT_TRUE(withId(testing::lintText(one_gpu), "shm-default").empty());
  // A memory-backed /dev/shm settles it.
  std::string mounted = text;
  mounted.replace(mounted.find("                        - mountPath: /workspace"), 0,
                  "                        - {mountPath: /dev/shm, name: shm}\n");
  mounted.replace(
      mounted.find("                  containers:\n"), 0,
      "                  volumes:\n                    - {name: shm, emptyDir: {medium: Memory}}\n");
  EXPECT_TRUE(withId(testing::lintText(mounted), "shm-default").empty());
  // Two GPUs in a plain Pod that starts nothing distributed: no advice.
  std::string serving = R"(apiVersion: v1
kind: Pod
metadata: {name: serve}
spec:
  containers:
  - name: c
    image: img
    command: [python, serve.py]
    resources: {limits: {nvidia.com/gpu: 2}}
)";
  EXPECT_TRUE(withId(testing::lintText(serving), "shm-default").empty());
  serving.replace(serving.find("[python, serve.py]"), 18, "[python, -m, torch.distributed.run, train.py]");
  EXPECT_EQ(withId(testing::lintText(serving), "shm-default").size(), 1u);
}

// The containers of every Volcano Job task in `text`, as lint sees them.
std::vector<ContainerFacts> volcanoContainers(const std::string& text) {
  LintInput input;
  auto manifest = loadManifest(text, "t.yaml");
  EXPECT_TRUE(manifest) << manifest.error().message;
  if (!manifest) return {};
  input.manifests.push_back(std::move(*manifest));
  std::vector<ContainerFacts> out;
  for (const PodFacts& pod : allPods(input))
    for (const ContainerFacts& container : pod.containers) out.push_back(container);
  return out;
}

// Volcano Jobs (batch.volcano.sh): their tasks' pod templates get every
// workload rule, and the env the job plugins add at pod creation counts as
// set. Nebius' NCCL test: the pytorch plugin's MASTER_ADDR, MASTER_PORT,
// WORLD_SIZE and RANK (torchrun reads them); the privileged container is
// found in both tasks: the worker's pod spec is a YAML alias of the
// master's, which the reader follows as kubectl does.
TEST(K8sLintReal, VolcanoPytorchPluginJob) {
  std::string text = fixture("nebius-nccl-test-pytorch-volcano-job.yaml");
  auto findings = testing::lintText(text);
  EXPECT_EQ(problemIds(findings),
            (std::multiset<std::string>{"privileged-container", "privileged-container"}));
  auto privileged = withId(findings, "privileged-container");
  ASSERT_EQ(privileged.size(), 2u);
  std::set<std::string> paths{privileged[0].path, privileged[1].path};
  EXPECT_EQ(paths,
            (std::set<std::string>{"spec.tasks[0].template.spec.containers[0].securityContext.privileged",
                                   "spec.tasks[1].template.spec.containers[0].securityContext.privileged"}));
  auto containers = volcanoContainers(text);
  ASSERT_FALSE(containers.empty());
  const auto& env = containers[0].env;
  EXPECT_EQ(env.at("MASTER_ADDR"), "nccl-test-pytorch-master-0.nccl-test-pytorch");
  EXPECT_EQ(env.at("MASTER_PORT"), "29500");
  EXPECT_EQ(env.at("WORLD_SIZE"), "2");
  EXPECT_EQ(env.at("RANK"), "0");
  // Without the plugin nothing sets them.
  text.replace(text.find("pytorch: ["), 10, "tensorflow: [");
  EXPECT_EQ(volcanoContainers(text)[0].env.count("MASTER_ADDR"), 0u);
}

// Volcano's pytorch plugin guide: the worker task's RANK differs per pod
// (set, value unknown); WORLD_SIZE is master + worker replicas.
TEST(K8sLintReal, VolcanoPytorchPluginGuideLintsClean) {
  std::string text = fixture("volcano-pytorch-plugin-guide-job.yaml");
  EXPECT_EQ(problemIds(testing::lintText(text)), std::multiset<std::string>{});
  auto containers = volcanoContainers(text);
  ASSERT_EQ(containers.size(), 2u);
  EXPECT_EQ(containers[1].name, "worker");
  EXPECT_EQ(containers[1].env.at("RANK"), "");
  EXPECT_EQ(containers[1].env.at("WORLD_SIZE"), "3");
  EXPECT_EQ(containers[1].env.at("MASTER_PORT"), "23456");
}

// Oracle's OKE Volcano Job with hostNetwork and the node's RDMA devices: the
// env plugin's VC_TASK_INDEX counts as set; the CAP_ prefix (an error: the
// runtime rejects it), privileged and hostNetwork are found in the task.
TEST(K8sLintReal, VolcanoHostNetworkRdmaJob) {
  std::string text = fixture("oci-oke-yolov5-hostnetwork-volcano-job.yaml");
  auto findings = testing::lintText(text);
  EXPECT_EQ(problemIds(findings),
            (std::multiset<std::string>{"cap-prefix", "host-network", "privileged-container"}));
  for (const Finding& finding : findings) {
    if (finding.severity != Severity::kInfo) {
      EXPECT_EQ(finding.path.rfind("spec.tasks[0].template.spec.", 0), 0u) << finding.path;
    }
  }
  auto containers = volcanoContainers(text);
  ASSERT_EQ(containers.size(), 1u);
  EXPECT_EQ(containers[0].env.count("VC_TASK_INDEX"), 1u);
  EXPECT_EQ(containers[0].env.count("RANK"), 0u);  // no pytorch plugin
}

// Volcano's own MindSpore GPU example (mpiexec from an mpimaster task) lints
// clean; give its workers an RDMA resource without IPC_LOCK and the rule
// finds the worker task's container.
TEST(K8sLintReal, VolcanoMpiExampleTasksGetTheRules) {
  std::string text = fixture("volcano-mindspore-gpu-job.yaml");
  EXPECT_EQ(problemIds(testing::lintText(text)), std::multiset<std::string>{});
  text.replace(text.find("nvidia.com/gpu: \"1\""), 19,
               "nvidia.com/gpu: \"1\"\n                  rdma/ib: \"1\"");
  auto findings = withId(testing::lintText(text), "ipc-lock-missing");
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].path.rfind("spec.tasks[1].template.spec.containers[0]", 0), 0u) << findings[0].path;
}

}  // namespace
}  // namespace railkit::k8s
