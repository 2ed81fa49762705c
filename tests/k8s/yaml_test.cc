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
  // What libyaml expected and found, where, and what it was reading.
  EXPECT_EQ(stream.error().message,
            "broken.yaml:2: not valid YAML: did not find expected ',' or ']' at column 2 "
            "(while parsing a flow sequence at line 1, column 4)");
  auto binary = parseYaml(std::string("a: \0b", 5), "bin");
  ASSERT_FALSE(binary);
  EXPECT_NE(binary.error().message.find("binary"), std::string::npos);
}

// YAML is Unicode text. A byte that is not UTF-8 is one line with file, line and
// column, checked before the parser runs (libfyaml 0.8, the reader before
// libyaml, looped forever on one in a directive line: k8s_yaml_fuzz).
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
  auto stream = parseYaml(deep, "deep");
  ASSERT_FALSE(stream);
  EXPECT_EQ(stream.error().message, "deep:1: nesting deeper than 200");
}

// kubectl follows aliases, so lint sees what the API server would get.
TEST(K8sYaml, AliasesStandForTheirAnchorsNode) {
  auto stream = parseYaml("a: &x {b: [1, 2]}\nc: *x\nd: &s text\ne: *s\n", "t.yaml");
  ASSERT_TRUE(stream) << stream.error().message;
  const YamlNode& root = stream->documents[0].root;
  ASSERT_NE(root.at({"c", "b"}), nullptr);
  EXPECT_EQ(root.at({"c", "b"})->items.size(), 2u);
  EXPECT_EQ(root.at({"c", "b"})->line, 1);  // where the text is
  EXPECT_EQ(root.get("e")->text(), "text");
  auto unknown = parseYaml("a: 1\nb: *nowhere\n", "u.yaml");
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().message,
            "u.yaml:2: not valid YAML: alias *nowhere refers to no anchor &nowhere defined before it");
  // Anchors belong to their document.
  EXPECT_FALSE(parseYaml("a: &x 1\n---\nb: *x\n", "docs.yaml"));
}

// Billion laughs: nine levels of nine aliases would be 9^9 nodes.
TEST(K8sYaml, AliasBombIsRefusedEarly) {
  std::string text = "a0: &a0 [x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 10; ++i) {
    std::string n = std::to_string(i), prev = std::to_string(i - 1);
    text.append("a").append(n).append(": &a").append(n).append(" [");
    for (int k = 0; k < 9; ++k) text.append(k > 0 ? ", *a" : "*a").append(prev);
    text.append("]\n");
  }
  auto stream = parseYaml(text, "bomb.yaml");
  ASSERT_FALSE(stream);
  EXPECT_EQ(stream.error().message,
            "bomb.yaml:6: aliases expand to more than 400000 nodes (excessive aliasing, refused as kubectl "
            "refuses it)");
  // Five levels (about 75,000 copied nodes) are still read.
  size_t cut = text.find("a5:");
  EXPECT_TRUE(parseYaml(text.substr(0, cut), "ok.yaml"));
  // A chain of aliases may not build a tree deeper than the parser allows.
  std::string chain = "x0: &x0 ";
  chain.append(150, '[').append(150, ']').append("\n");
  for (int i = 1; i < 60; ++i) {
    std::string n = std::to_string(i), prev = std::to_string(i - 1);
    chain.append("x").append(n).append(": &x").append(n).append(" [*x").append(prev).append("]\n");
  }
  auto deep = parseYaml(chain, "chain.yaml");
  ASSERT_FALSE(deep);
  EXPECT_EQ(deep.error().message, "chain.yaml:51: alias *x49 nests deeper than 200");
}

// Merge keys as YAML 1.1 and go-yaml read them: keys written in the mapping
// win, then the merged mappings in the order listed.
TEST(K8sYaml, MergeKeysFillInMissingKeys) {
  auto stream = parseYaml(
      "base: &b {cpu: 1, memory: 1Gi}\n"
      "one:\n  <<: *b\n  memory: 2Gi\n"
      "two: {<<: [{k: first}, {k: second, j: 3}]}\n"
      "quoted: {'<<': 1}\n",
      "t.yaml");
  ASSERT_TRUE(stream) << stream.error().message;
  const YamlNode& root = stream->documents[0].root;
  EXPECT_EQ(root.at({"one", "cpu"})->text(), "1");
  EXPECT_EQ(root.at({"one", "memory"})->text(), "2Gi");
  EXPECT_EQ(root.get("one")->get("<<"), nullptr);
  EXPECT_EQ(root.at({"two", "k"})->text(), "first");
  EXPECT_EQ(root.at({"two", "j"})->text(), "3");
  EXPECT_EQ(root.at({"quoted", "<<"})->text(), "1");  // a quoted key is only a key
  EXPECT_TRUE(stream->duplicates.empty());
  auto bad = parseYaml("a:\n  <<: [1]\n", "m.yaml");
  ASSERT_FALSE(bad);
  EXPECT_EQ(
      bad.error().message,
      "m.yaml:2: not valid YAML: expected a mapping or a list of mappings after the merge key <<, found a "
      "list holding something else");
}

// A manifest pasted with its first line indented, then a line further left:
// kubectl reads the first node and drops the rest without a word; here the
// file is refused and the message says what kubectl would have lost.
TEST(K8sYaml, TextAfterTheTopNodeIsRefusedWithKubectlsReading) {
  auto stream = parseYaml("  apiVersion: v1\n  kind: ConfigMap\ndata: {a: b}\n", "t.yaml");
  ASSERT_FALSE(stream);
  EXPECT_EQ(
      stream.error().message,
      "t.yaml:3: not valid YAML: did not find expected <document start> at column 1; the document's top "
      "node ended before this line (is it indented less than the document's first line?), and kubectl "
      "would silently ignore the text from here to the next '---'");
}

// kubectl converts YAML to JSON, whose keys are text: it refuses a file with
// a null, list or mapping key. Numbers and booleans become text keys.
TEST(K8sYaml, KeysKubectlCannotUseAreRefused) {
  for (const char* key : {"~", "null", "? [a, b]\n ", "? {a: 1}\n "}) {
    std::string text = std::string("data:\n ") + key + ": x\n";
    auto stream = parseYaml(text, "k.yaml");
    ASSERT_FALSE(stream) << text;
    EXPECT_EQ(stream.error().message.rfind(
                  "k.yaml:2: not valid YAML for Kubernetes: expected a text mapping key, found ", 0),
              0u)
        << stream.error().message;
  }
  auto text_keys = parseYaml("data: {1: a, true: b, '': c}\n", "k.yaml");
  ASSERT_TRUE(text_keys) << text_keys.error().message;
  EXPECT_EQ(text_keys->documents[0].root.at({"data", "true"})->text(), "b");
  EXPECT_EQ(text_keys->documents[0].root.at({"data", ""})->text(), "c");
}

TEST(K8sYaml, ControlCharacterIsRefusedWithItsColumn) {
  auto stream = parseYaml("a: b\nc: d\x01\n", "c.yaml");
  ASSERT_FALSE(stream);
  EXPECT_EQ(stream.error().message,
            "c.yaml:2: not valid YAML: control characters are not allowed (0x01) at column 5");
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
