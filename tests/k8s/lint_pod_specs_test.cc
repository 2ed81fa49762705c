// Pod specs are found by their shape, in any kind and at any path, each
// once, with the path where it was found; the walk is bounded.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "k8s/lint/lint.h"
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

struct Seen {
  std::string path, role;
};

// Every pod spec of every object of `text`, as the walk reports it.
std::vector<Seen> podSpecs(const std::string& text) {
  std::vector<Seen> out;
  auto manifest = loadManifest(text, "t.yaml");
  if (!manifest) {
    ADD_FAILURE() << manifest.error().message;
    return out;
  }
  for (const Object& object : (*manifest)->objects)
    forEachPodSpec(object, [&](const PodSpecView& view) { out.push_back({view.path, view.role}); });
  return out;
}

std::vector<std::string> paths(const std::vector<Seen>& seen) {
  std::vector<std::string> out;
  for (const Seen& one : seen) out.push_back(one.path);
  return out;
}

std::vector<Finding> withId(const std::vector<Finding>& findings, const std::string& id) {
  std::vector<Finding> out;
  for (const Finding& finding : findings)
    if (finding.id == id) out.push_back(finding);
  return out;
}

// A kind lint has never heard of, its pod specs in a list under a field of
// its own, and a core PodTemplate whose pod spec is not under `spec` at all.
TEST(K8sLintPodSpecs, FoundByShapeInAnyKind) {
  const std::string crd = R"(apiVersion: example.com/v1
kind: Trainer
metadata: {name: t}
spec:
  stages:
  - name: prep
    replicas: 1
  - name: train
    podTemplate:
      spec:
        containers:
        - name: c
          image: img
          securityContext: {privileged: true}
---
apiVersion: v1
kind: PodTemplate
metadata: {name: pt}
template:
  metadata: {annotations: {k8s.v1.cni.cncf.io/networks: rdma-net}}
  spec:
    hostNetwork: true
    containers:
    - {name: c, image: img}
)";
  EXPECT_EQ(paths(podSpecs(crd)),
            (std::vector<std::string>{"spec.stages[1].podTemplate.spec", "template.spec"}));
  auto findings = lintText(crd);
  auto privileged = withId(findings, "privileged-container");
  ASSERT_EQ(privileged.size(), 1u);
  EXPECT_EQ(privileged[0].object, "Trainer/t");
  EXPECT_EQ(privileged[0].path, "spec.stages[1].podTemplate.spec.containers[0].securityContext.privileged");
  auto host = withId(findings, "host-network");
  ASSERT_EQ(host.size(), 1u);
  EXPECT_EQ(host[0].object, "PodTemplate/pt");
  EXPECT_EQ(host[0].path.rfind("template.spec.", 0), 0u) << host[0].path;
}

// `containers` that is not a list of containers is some other field: no pod
// spec there (a list of names, an empty list, a mapping). Metadata and status
// are never walked.
TEST(K8sLintPodSpecs, ContainersMustLookLikeContainers) {
  EXPECT_TRUE(podSpecs(R"(apiVersion: example.com/v1
kind: Watcher
metadata:
  name: w
  annotations: {note: x}
spec:
  targets:
  - containers: [app, sidecar]
  - containers: []
  - containers: {name: c, image: img}
  - containers: [{port: 80}]
status:
  lastPod:
    containers: [{name: c, image: img}]
)")
                  .empty());
  // One container with only an image (a patch may leave out the name) is enough.
  EXPECT_EQ(
      paths(podSpecs("apiVersion: example.com/v1\nkind: K\nspec:\n  pod:\n    containers: [{image: img}]\n")),
      (std::vector<std::string>{"spec.pod"}));
}

// The known paths name roles and add nothing: an MPIJob has two pod specs,
// a Volcano job with two tasks sharing one pod spec through an anchor has
// two, a LeaderWorkerSet has its leader's and its workers'.
TEST(K8sLintPodSpecs, EachPodSpecOnceWithItsRole) {
  auto mpijob = podSpecs(fixture("mpi-operator-v1alpha2-tf-benchmarks.yaml"));
  ASSERT_EQ(mpijob.size(), 2u);
  EXPECT_EQ(mpijob[0].path, "spec.mpiReplicaSpecs.Launcher.template.spec");
  EXPECT_EQ(mpijob[0].role, "Launcher");
  EXPECT_EQ(mpijob[1].path, "spec.mpiReplicaSpecs.Worker.template.spec");
  EXPECT_EQ(mpijob[1].role, "Worker");
  auto v1alpha1 = podSpecs(fixture("mpi-operator-v1alpha1-tf-benchmarks-custom.yaml"));
  ASSERT_EQ(v1alpha1.size(), 1u);
  EXPECT_EQ(v1alpha1[0].path, "spec.template.spec");
  EXPECT_EQ(paths(podSpecs(fixture("nebius-nccl-test-pytorch-volcano-job.yaml"))),
            (std::vector<std::string>{"spec.tasks[0].template.spec", "spec.tasks[1].template.spec"}));
  EXPECT_EQ(paths(podSpecs(fixture("lws-vllm-gpu-leaderworkerset.yaml"))),
            (std::vector<std::string>{"spec.leaderWorkerTemplate.leaderTemplate.spec",
                                      "spec.leaderWorkerTemplate.workerTemplate.spec"}));
}

// A LeaderWorkerSet's findings name the template they are in.
TEST(K8sLintPodSpecs, FindingsInAnOperatorsKindCarryThePath) {
  auto findings = lintText(fixture("lws-vllm-gpu-leaderworkerset.yaml"));
  auto placeholders = withId(findings, "unexpanded-placeholder");
  ASSERT_EQ(placeholders.size(), 2u);
  EXPECT_EQ(placeholders[0].path.rfind("spec.leaderWorkerTemplate.leaderTemplate.spec.containers[0].env", 0),
            0u)
      << placeholders[0].path;
  EXPECT_EQ(placeholders[1].path.rfind("spec.leaderWorkerTemplate.workerTemplate.spec.containers[0].env", 0),
            0u)
      << placeholders[1].path;
  EXPECT_TRUE(withId(findings, "shm-default").empty());  // both mount /dev/shm in memory
}

// `depth` mappings `a:` deep, a pod spec with a privileged container at the bottom.
std::string nested(int depth) {
  std::string text = "apiVersion: example.com/v1\nkind: Deep\nmetadata: {name: d}\nspec:\n";
  std::string indent = "  ";
  for (int i = 0; i < depth; ++i, indent += " ") text += indent + "a:\n";
  text += indent + "containers: [{name: c, image: img, securityContext: {privileged: true}}]\n";
  return text;
}

// The walk stops kMaxPodSpecDepth below the root: a pod spec deeper than any
// real one is not looked for, and a document nested as deep as the reader
// allows lints without exhausting the stack.
TEST(K8sLintPodSpecs, WalkIsBounded) {
  auto near = podSpecs(nested(kMaxPodSpecDepth - 2));
  ASSERT_EQ(near.size(), 1u);
  EXPECT_EQ(near[0].path.size(), std::string("spec").size() + 2 * (kMaxPodSpecDepth - 2));
  EXPECT_TRUE(podSpecs(nested(kMaxPodSpecDepth + 10)).empty());
  auto deepest = loadManifest(nested(195), "deep.yaml");  // the reader refuses 200 and more
  ASSERT_TRUE(deepest) << deepest.error().message;
  EXPECT_TRUE(withId(lintText(nested(195)), "privileged-container").empty());
  EXPECT_FALSE(loadManifest(nested(200), "deeper.yaml"));
}

}  // namespace
}  // namespace railkit::k8s
