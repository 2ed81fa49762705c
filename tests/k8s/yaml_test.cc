#include <gtest/gtest.h>

#include "k8s/manifest.h"
#include "k8s/yaml.h"

namespace railkit::k8s {
namespace {

TEST(K8sYaml, KeepsLinesAndReportsDuplicateKeys) {
  auto stream = parseYaml("a: 1\nb:\n  c: x\n  c: y\n---\nd: [1, 2]\n", "t.yaml");
  ASSERT_TRUE(stream) << stream.error().message;
  ASSERT_EQ(stream->documents.size(), 2u);
  const YamlNode& first = stream->documents[0].root;
  EXPECT_EQ(first.at({"b", "c"})->text(), "y");  // the last value wins
  EXPECT_EQ(first.at({"b", "c"})->line, 4);
  ASSERT_EQ(stream->duplicates.size(), 1u);
  EXPECT_EQ(stream->duplicates[0].key, "c");
  EXPECT_EQ(stream->duplicates[0].path, "b");
  EXPECT_EQ(stream->duplicates[0].first_line, 3);
  EXPECT_EQ(stream->duplicates[0].line, 4);
  EXPECT_EQ(stream->documents[1].root.get("d")->items.size(), 2u);
}

TEST(K8sYaml, QuotedScalarsStayStrings) {
  auto stream = parseYaml("a: '1'\nb: 1\nc: ~\n", "t.yaml");
  ASSERT_TRUE(stream);
  const YamlNode& root = stream->documents[0].root;
  EXPECT_TRUE(root.get("a")->quoted);
  EXPECT_FALSE(root.get("b")->quoted);
  EXPECT_EQ(root.get("c")->type, YamlNode::Type::kNull);
}

TEST(K8sYaml, BrokenYamlGivesFileAndLine) {
  auto stream = parseYaml("a: [1, 2\nb: {\n", "broken.yaml");
  ASSERT_FALSE(stream);
  EXPECT_EQ(stream.error().message.rfind("broken.yaml:", 0), 0u) << stream.error().message;
  EXPECT_EQ(stream.error().message.find('\n'), std::string::npos);
  auto binary = parseYaml(std::string("a: \0b", 5), "bin");
  ASSERT_FALSE(binary);
  EXPECT_NE(binary.error().message.find("binary"), std::string::npos);
}

TEST(K8sYaml, DeepNestingIsRejectedNotCrashing) {
  std::string deep(5000, '[');
  EXPECT_FALSE(parseYaml(deep, "deep"));
}

TEST(K8sManifest, PlainTextIsNotAManifest) {
  auto manifest = loadManifest("just some words\n", "notes.txt");
  ASSERT_FALSE(manifest);
  EXPECT_NE(manifest.error().message.find("notes.txt:1:"), std::string::npos);
}

TEST(K8sManifest, FindsPodSpecsWithRoles) {
  auto manifest = loadManifest(R"(apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata: {name: j}
spec:
  mpiReplicaSpecs:
    Launcher:
      template:
        spec:
          containers: [{name: l, image: x}]
    Worker:
      template:
        metadata: {annotations: {k8s.v1.cni.cncf.io/networks: net-a}}
        spec:
          containers: [{name: w, image: x}]
)",
                               "j.yaml");
  ASSERT_TRUE(manifest);
  ASSERT_EQ((*manifest)->objects.size(), 1u);
  std::vector<std::string> roles;
  forEachPodSpec((*manifest)->objects[0], [&](const PodSpecView& view) {
    roles.push_back(view.role);
    if (view.role == "Worker") {
      ASSERT_NE(view.metadata, nullptr);
      EXPECT_NE(view.metadata->at({"annotations", "k8s.v1.cni.cncf.io/networks"}), nullptr);
    }
  });
  EXPECT_EQ(roles, (std::vector<std::string>{"Launcher", "Worker"}));
}

}  // namespace
}  // namespace railkit::k8s
