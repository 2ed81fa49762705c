#include <gtest/gtest.h>

#include "lint_helpers.h"

namespace railkit::k8s {
namespace {

using testing::lintText;
using testing::problemIds;

const char* kRdmaPod = R"(apiVersion: v1
kind: Pod
metadata:
  name: p
  namespace: ml
  annotations:
    k8s.v1.cni.cncf.io/networks: rdma-net
spec:
  containers:
  - name: c
    image: img
    env:
    - {name: NCCL_SOCKET_IFNAME, value: "IFVAL"}
    resources:
      requests: {nvidia.com/gpu: 8, rdma/shared: 1}
      limits: {nvidia.com/gpu: 8, rdma/shared: LIMIT}
    securityContext:
      capabilities: {add: [CAPS]}
)";

std::string pod(const std::string& ifname, const std::string& limit, const std::string& caps) {
  std::string text = kRdmaPod;
  text.replace(text.find("IFVAL"), 5, ifname);
  text.replace(text.find("LIMIT"), 5, limit);
  text.replace(text.find("CAPS"), 4, caps);
  return text;
}

TEST(K8sLintRules, CleanRdmaPodOnlyLacksShm) {
  auto ids = problemIds(lintText(pod("eth0", "1", "IPC_LOCK")));
  EXPECT_EQ(ids, (std::multiset<std::string>{"shm-default"}));
}

TEST(K8sLintRules, IpcLockMissingAndCapPrefix) {
  auto missing = problemIds(lintText(pod("eth0", "1", "NET_ADMIN")));
  EXPECT_EQ(missing.count("ipc-lock-missing"), 1u);
  auto prefixed = problemIds(lintText(pod("eth0", "1", "CAP_IPC_LOCK")));
  EXPECT_EQ(prefixed.count("cap-prefix"), 1u);
  EXPECT_EQ(prefixed.count("ipc-lock-missing"), 0u);
}

TEST(K8sLintRules, ExtendedResourceMismatch) {
  auto findings = lintText(pod("eth0", "2", "IPC_LOCK"));
  auto ids = problemIds(findings);
  EXPECT_EQ(ids.count("extended-resource-mismatch"), 1u);
  for (const Finding& finding : findings)
    if (finding.id == "extended-resource-mismatch") {
      EXPECT_EQ(finding.object, "Pod/p");
      EXPECT_EQ(finding.path, "spec.containers[0].resources.requests.rdma/shared");
      EXPECT_EQ(finding.line, 10);
    }
}

TEST(K8sLintRules, SocketIfnameMustNameAPodInterface) {
  EXPECT_EQ(problemIds(lintText(pod("net1", "1", "IPC_LOCK"))).count("nccl-socket-ifname-mismatch"), 0u);
  EXPECT_EQ(problemIds(lintText(pod("ib0", "1", "IPC_LOCK"))).count("nccl-socket-ifname-mismatch"), 1u);
  EXPECT_EQ(problemIds(lintText(pod("^lo,docker", "1", "IPC_LOCK"))).count("nccl-socket-ifname-mismatch"),
            0u);
}

TEST(K8sLintRules, PssBaselineRejectsIpcLock) {
  std::string ns =
      "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ml\n  labels:\n"
      "    pod-security.kubernetes.io/enforce: LEVEL\n---\n";
  std::string baseline = ns;
  baseline.replace(baseline.find("LEVEL"), 5, "baseline");
  std::string privileged = ns;
  privileged.replace(privileged.find("LEVEL"), 5, "privileged");
  EXPECT_EQ(problemIds(lintText(baseline + pod("eth0", "1", "IPC_LOCK"))).count("pss-forbids-ipc-lock"), 1u);
  EXPECT_EQ(problemIds(lintText(privileged + pod("eth0", "1", "IPC_LOCK"))).count("pss-forbids-ipc-lock"),
            0u);
}

const char* kMpiJob = R"(apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata: {name: j}
spec:
  slotsPerWorker: SLOTS
  mpiReplicaSpecs:
    Launcher:
      replicas: 1
      template:
        spec:
          containers:
          - name: l
            image: img
            env: [{name: NCCL_DEBUG, value: INFO}, {name: UCX_TLS, value: rc}]
            command: [mpirun, -x, NCCL_DEBUG, -x, coll_hcoll_enable=0, --mca, pml, ob1, --mca, pml, ucx, all_reduce_perf]
    Worker:
      replicas: 2
      template:
        metadata:
          annotations: {k8s.v1.cni.cncf.io/networks: rdma-net}
        spec:
          containers:
          - name: w
            image: img
            securityContext: {capabilities: {add: [IPC_LOCK]}}
            resources:
              limits: {nvidia.com/gpu: 8, rdma/ib: 1}
)";

TEST(K8sLintRules, MpiJobRules) {
  std::string text = kMpiJob;
  text.replace(text.find("SLOTS"), 5, "4");
  auto ids = problemIds(lintText(text));
  EXPECT_EQ(ids.count("slots-gpu-mismatch"), 1u);
  EXPECT_EQ(ids.count("nccl-env-not-forwarded"), 1u);  // UCX_TLS only; NCCL_DEBUG has -x
  EXPECT_EQ(ids.count("ompi-btl-if-unset"), 1u);
  EXPECT_EQ(ids.count("ompi-mca-misused"), 2u);    // -x MCA name, pml twice
  EXPECT_EQ(ids.count("ompi-coll-conflict"), 0u);  // HCOLL/UCC unset: info only
  EXPECT_EQ(ids.count("ipc-lock-missing"), 0u);    // the launcher only starts ranks
  std::string fixed = kMpiJob;
  fixed.replace(fixed.find("SLOTS"), 5, "8");
  EXPECT_EQ(problemIds(lintText(fixed)).count("slots-gpu-mismatch"), 0u);
}

// Workers with GPUs but no RDMA device or NCCL_ variable of their own still run
// NCCL when their launcher starts nccl-tests with -x NCCL_...: their /dev/shm matters.
TEST(K8sLintRules, ShmDefaultForWorkersOfAnNcclLauncher) {
  const std::string job = R"(apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata: {name: j}
spec:
  slotsPerWorker: 8
  mpiReplicaSpecs:
    Launcher:
      replicas: 1
      template:
        spec:
          containers:
          - name: l
            image: img
            command: [/bin/bash, -c]
            args: ["mpirun -np 16 -x NCCL_SOCKET_IFNAME=eth0 COMMAND"]
    Worker:
      replicas: 2
      template:
        spec:
          containers:
          - name: w
            image: img
            resources:
              limits: {amd.com/gpu: 8}
              requests: {amd.com/gpu: 8}
)";
  auto shmFindings = [&](const std::string& command) {
    std::string text = job;
    text.replace(text.find("COMMAND"), 7, command);
    return problemIds(lintText(text)).count("shm-default");
  };
  EXPECT_EQ(shmFindings("/opt/rccl-tests/build/all_reduce_perf -b 512M"), 1u);
  EXPECT_EQ(shmFindings("hostname"), 1u);  // -x NCCL_ alone says the ranks use NCCL
  std::string plain = job;
  plain.replace(plain.find("-x NCCL_SOCKET_IFNAME=eth0 COMMAND"), 34, "hostname");
  EXPECT_EQ(problemIds(lintText(plain)).count("shm-default"), 0u);
}

TEST(K8sLintRules, PlaceholdersOutsideScriptsOnly) {
  auto ids = problemIds(lintText(R"(apiVersion: batch/v1
kind: Job
metadata: {name: __NAME__}
spec:
  parallelism: ${N}
  template:
    spec:
      containers:
      - name: c
        image: img
        command: [sh, -c, 'echo ${HOME}']
)"));
  EXPECT_EQ(ids.count("unexpanded-placeholder"), 2u);
}

// envsubst leaves bare $VAR: reported as a whole value or in a name/image;
// `$PATH:...` in an env value and Kubernetes' own `$(VAR)` are not placeholders.
TEST(K8sLintRules, BarePlaceholders) {
  auto findings = lintText(R"yaml(apiVersion: batch/v1
kind: Job
metadata: {name: $JOB_NAME}
spec:
  parallelism: $N
  template:
    spec:
      containers:
      - name: c
        image: registry/$IMAGE:1
        env:
        - {name: PATH, value: "$PATH:/opt/bin"}
        - {name: RANK, value: "$(JOB_COMPLETION_INDEX)"}
        - {name: PROVIDER, value: $FI_PROVIDER}
        command: [sh, -c, 'echo $HOME']
)yaml");
  std::set<std::string> paths;
  for (const Finding& finding : findings)
    if (finding.id == "unexpanded-placeholder") paths.insert(finding.path);
  EXPECT_EQ(paths, (std::set<std::string>{"metadata.name", "spec.parallelism",
                                          "spec.template.spec.containers[0].image",
                                          "spec.template.spec.containers[0].env[2].value"}));
}

// Annotations are user text: JSON of any shape, or no JSON, reads as
// "interfaces unknown" (no finding either way), never as a crash.
TEST(K8sLintRules, OddNetworkAnnotationsMeanUnknownInterfaces) {
  for (const char* annotation :
       {R"('[1, "x"]')", R"('[{"name": 5, "interface": ["net1"]}]')", "'[not json'", "'{}'"}) {
    for (const char* key : {"k8s.v1.cni.cncf.io/networks", "networking.gke.io/interfaces"}) {
      std::string text =
          std::string("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  annotations:\n    ") + key + ": " +
          annotation +
          "\nspec:\n  containers:\n  - name: c\n    image: i\n    env: [{name: NCCL_SOCKET_IFNAME, "
          "value: ib0}]\n";
      EXPECT_EQ(problemIds(lintText(text)).count("nccl-socket-ifname-mismatch"), 0u)
          << key << " " << annotation;
    }
  }
}

TEST(K8sLintRules, CniJsonAndPrivilegedAndHostNetwork) {
  auto ids = problemIds(lintText(R"(apiVersion: sriovnetwork.openshift.io/v1
kind: SriovNetwork
metadata: {name: n}
spec:
  resourceName: x
  ipam: '{"type": "whereabouts",}'
---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  hostNetwork: true
  containers: [{name: c, image: i, securityContext: {privileged: true}}]
)"));
  EXPECT_EQ(ids.count("cni-config-invalid-json"), 1u);
  EXPECT_EQ(ids.count("host-network"), 1u);
  EXPECT_EQ(ids.count("privileged-container"), 1u);
}

TEST(K8sLintRules, DeclaredRdmaResourcesCount) {
  auto ids = problemIds(lintText(R"(apiVersion: sriovnetwork.openshift.io/v1
kind: SriovNetworkNodePolicy
metadata: {name: pol}
spec: {resourceName: myvfs, isRdma: true}
---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
  - name: c
    image: i
    resources: {limits: {openshift.io/myvfs: 1}}
)"));
  EXPECT_EQ(ids.count("ipc-lock-missing"), 1u);
}

TEST(K8sLintRules, NoSchemasGivesNote) {
  auto findings = lintText("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n");
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].id, "schema");
  EXPECT_EQ(findings[0].severity, Severity::kInfo);
}

// A pod with 2 GPUs whose DRA claim requests 2 devices of CLASS, and
// NCCL_SOCKET_IFNAME=net1. The GKE class names are the ones GKE managed
// DRANET installs (mrdma.google.com: RDMA NICs, netdev.google.com: other
// NICs; https://docs.cloud.google.com/kubernetes-engine/docs/how-to/allocate-network-resources-dra).
std::vector<Finding> claimPod(const std::string& device_class) {
  std::string text = R"(apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: devs}
spec:
  spec:
    devices:
      requests:
      - name: req
        exactly: {deviceClassName: CLASS, allocationMode: ExactCount, count: 2}
---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  resourceClaims:
  - {name: devs, resourceClaimTemplateName: devs}
  containers:
  - name: c
    image: img
    env:
    - {name: NCCL_SOCKET_IFNAME, value: net1}
    resources:
      limits: {nvidia.com/gpu: 2}
      claims: [{name: devs}]
)";
  text.replace(text.find("CLASS"), 5, device_class);
  return lintText(text);
}

std::multiset<std::string> ids(const std::vector<Finding>& findings) {
  std::multiset<std::string> out;
  for (const Finding& finding : findings) out.insert(finding.id);
  return out;
}

TEST(K8sLintRules, DraClaimPlacedByDeviceClass) {
  // RDMA NICs, names chosen by GKE: RDMA without IPC_LOCK, net1 not compared.
  auto mrdma = ids(claimPod("mrdma.google.com"));
  EXPECT_EQ(mrdma.count("ipc-lock-missing"), 1u);
  EXPECT_EQ(mrdma.count("nccl-socket-ifname-mismatch"), 0u);
  EXPECT_EQ(mrdma.count("dra-claim-unknown"), 0u);
  // Plain NICs: not RDMA even next to GPUs.
  auto netdev = ids(claimPod("netdev.google.com"));
  EXPECT_EQ(netdev.count("ipc-lock-missing"), 0u);
  EXPECT_EQ(netdev.count("nccl-socket-ifname-mismatch"), 0u);
  // GPUs only: no NIC, so the pod has eth0 alone and net1 is wrong.
  auto gpus = ids(claimPod("gpu.nvidia.com"));
  EXPECT_EQ(gpus.count("ipc-lock-missing"), 0u);
  EXPECT_EQ(gpus.count("nccl-socket-ifname-mismatch"), 1u);
  EXPECT_EQ(gpus.count("dra-claim-unknown"), 0u);
}

TEST(K8sLintRules, UnknownDeviceClassIsNeitherNicNorRdma) {
  auto findings = claimPod("vf.example.com");
  auto found = ids(findings);
  EXPECT_EQ(found.count("ipc-lock-missing"), 0u);
  EXPECT_EQ(found.count("nccl-socket-ifname-mismatch"), 0u);  // it may be a NIC: names unknown
  ASSERT_EQ(found.count("dra-claim-unknown"), 1u);
  for (const Finding& finding : findings)
    if (finding.id == "dra-claim-unknown") {
      EXPECT_EQ(finding.severity, Severity::kInfo);
      EXPECT_EQ(finding.path, "spec.resourceClaims[0]");
      EXPECT_NE(finding.message.find("device class vf.example.com"), std::string::npos) << finding.message;
    }
}

// A DeviceClass of the input whose selectors name the dra.net driver
// without its rdma attribute: a NIC that GPUs use counts as RDMA, and the
// v1beta1 request shape (fields on the request) reads the same.
TEST(K8sLintRules, DeviceClassSelectorsNameTheDriver) {
  std::string text = R"(apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: nics}
spec:
  selectors:
  - cel: {expression: 'device.driver == "dra.net"'}
---
apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaim
metadata: {name: nic}
spec:
  devices:
    requests:
    - {name: req, deviceClassName: nics}
---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  resourceClaims:
  - {name: nic, resourceClaimName: nic}
  containers:
  - name: c
    image: img
    resources:
      limits: {nvidia.com/gpu: 1}
)";
  auto found = ids(lintText(text));
  EXPECT_EQ(found.count("ipc-lock-missing"), 1u);
  EXPECT_EQ(found.count("dra-claim-unknown"), 0u);
}

}  // namespace
}  // namespace railkit::k8s

namespace railkit::k8s {
namespace {

// A List, or a <Kind>List such as PodList, is applied item by item by
// kubectl, and an item without a kind takes the list's: lint sees every one
// (a PodList once hid privileged and hostNetwork Pods).
TEST(K8sLintRules, ListsDoNotHidePods) {
  const char* kPodList = R"(apiVersion: v1
kind: PodList
items:
- metadata: {name: hidden-a}
  spec:
    hostNetwork: true
    containers:
    - name: c
      image: img
      securityContext: {privileged: true}
- apiVersion: v1
  kind: Pod
  metadata: {name: hidden-b}
  spec:
    containers:
    - {name: c, image: img, securityContext: {privileged: true}}
)";
  auto findings = lintText(kPodList);
  auto ids = problemIds(findings);
  EXPECT_EQ(ids.count("privileged-container"), 2u);
  EXPECT_EQ(ids.count("host-network"), 1u);
  bool named = false;
  for (const auto& f : findings)
    named = named || (f.object + " " + f.subject).find("Pod/hidden-a") != std::string::npos;
  EXPECT_TRUE(named) << "the kind-less item is a Pod, named as one";
  std::string list = std::string(kPodList);
  list.replace(list.find("kind: PodList"), 13, "kind: List");
  EXPECT_EQ(problemIds(lintText(list)).count("privileged-container"), 2u);
}

}  // namespace
}  // namespace railkit::k8s
