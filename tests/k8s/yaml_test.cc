#include "k8s/yaml.h"

#include <gtest/gtest.h>

#include "k8s/manifest.h"

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

// YAML is Unicode text. A byte that is not UTF-8 is one line with file, line and
// column; on a directive line libfyaml 0.8 looped forever on it (k8s_yaml_fuzz).
TEST(K8sYaml, NonUtf8IsRejectedWithLineAndColumn) {
  auto directive = parseYaml("%apiVae\x8c =et\"\n\xff\xff", "d.yaml");
  ASSERT_FALSE(directive);
  EXPECT_EQ(directive.error().message,
            "d.yaml:1: not valid YAML: byte 0x8c at column 8 is not UTF-8 (YAML text must be Unicode)");
  auto cut = parseYaml("a: b\nc: d\xc3", "cut.yaml");
  ASSERT_FALSE(cut);
  EXPECT_NE(cut.error().message.find("cut.yaml:2:"), std::string::npos) << cut.error().message;
  for (const char* bad : {"a: \xc0\xaf\n", "a: \xed\xa0\x80\n", "a: \xf4\x90\x80\x80\n"})
    EXPECT_FALSE(parseYaml(bad, "x.yaml")) << bad;  // overlong, surrogate, above U+10FFFF
  auto fine = parseYaml("a: \"\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x98\x80\"\n", "ok.yaml");
  EXPECT_TRUE(fine) << (fine ? "" : fine.error().message);
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
