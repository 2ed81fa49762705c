// YAML that kubectl accepts must not be refused (issue 30). kubectl reads
// manifests with go-yaml, a Go port of libyaml; each form below is first
// checked in the test itself with python3-yaml's two readers of that family
// (tests/k8s/yaml_oracle.py), then railkit's tree is compared with libyaml's,
// then `railkit lint` must lint it: exit 0 or 1, never 2. Where kubectl is
// installed (it is not a build dependency), it must read the file too:
// `kubectl label --local` decodes it offline with kubectl's own YAML reader.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "k8s/lint/lint.h"
#include "k8s/yaml.h"
#include "lint_helpers.h"
#include "support/bench_output.h"
#include "support/process.h"
#include "support/test_support.h"

namespace railkit::k8s {
namespace {

namespace fs = std::filesystem;

struct Form {
  const char* name;
  const char* text;
  // PyYAML's pure-Python scanner eats only spaces between tokens; libyaml and
  // go-yaml (the same yaml_parser_scan_to_next_token) also eat a tab after a
  // key or value. Where they differ, kubectl reads as libyaml does.
  bool pure_python_reads_it = true;
};

constexpr const char* kPod =
    "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n"
    "  - name: a\n    image: busybox\n";

const std::vector<Form>& forms() {
  static const std::vector<Form> all = {
      // The two shapes, and their relatives.
      {"flow sequence end at its key's indentation",
       "    command: [\n      \"sh\", \"-c\",\n      \"sleep 1\"\n    ]\n"},
      {"flow sequence end left of its key", "    command: [\n      \"sh\",\n      \"-c\"\n  ]\n"},
      {"flow sequence entries at column 1", "    args: [\n\"--a\",\n\"--b\"\n]\n"},
      {"single-quoted end at its key's indentation",
       "    env:\n    - name: CNI\n      value: '{\n        \"a\": 1\n      }'\n"},
      {"single-quoted end at column 1", "    env:\n    - name: CNI\n      value: '{\n  \"a\": 1\n}'\n"},
      {"single-quoted lines indented with tabs",
       "    env:\n    - name: CNI\n      value: '{\n\t\"a\": 1\n\t}'\n"},
      {"double-quoted continuation left of its key",
       "    env:\n    - name: S\n      value: \"one\n two\n\"\n"},
      // Flow mappings over lines.
      {"flow mapping over lines",
       "    resources: {limits: {cpu: 1,\n      memory: 1Gi},\n  requests: {cpu: 1}}\n"},
      {"flow mapping end at column 1", "    securityContext: {\n      privileged: true\n}\n"},
      {"comment inside a flow sequence", "    command: [\"sh\", # the shell\n      \"-c\"]\n"},
      {"trailing comma in a flow sequence", "    command: [\"sh\", \"-c\",]\n"},
      {"empty value in a flow mapping", "    resources: {limits: , requests: {cpu: 1}}\n"},
      // Tabs after values and keys.
      {"tab after a value", "    imagePullPolicy: Always\t\n    workingDir: /w\t# note\n", false},
      {"tab after a colon", "    imagePullPolicy:\tAlways\n", false},
      {"tab inside a flow sequence", "    args: [a,\tb]\n", false},
      // Odd but consistent indentation, and stream syntax.
      {"odd indentation", "    ports:\n       -   containerPort: 80\n           protocol: TCP\n"},
      {"plain scalar over lines", "    workingDir: /a\n      /b\n"},
      {"block scalar with an indentation indicator", "    args:\n    - |2\n         indented\n"},
      {"anchor and alias",
       "    env: &env [{name: A, value: '1'}]\n  - name: b\n    image: busybox\n    env: *env\n"},
      {"merge key", "    resources:\n      <<: {limits: {cpu: 1}}\n      requests: {cpu: 1}\n"},
      {"document end marker and directive",
       "...\n%YAML 1.1\n---\napiVersion: v1\nkind: ConfigMap\n"
       "metadata: {name: c}\n"},
  };
  return all;
}

nlohmann::json toJson(const YamlNode& node) {
  if (node.isMap()) {
    nlohmann::json object = nlohmann::json::object();
    for (const auto& [key, value] : node.entries) object[key] = toJson(value);
    return object;
  }
  if (node.isSeq()) {
    nlohmann::json list = nlohmann::json::array();
    for (const YamlNode& item : node.items) list.push_back(toJson(item));
    return list;
  }
  return node.value;  // the text of a null too: "" or "~", as libyaml's BaseLoader keeps it
}

bool kubectlInstalled() {
  static const bool installed = railkit::testing::runShell("command -v kubectl").status == 0;
  return installed;
}

class YamlLenient : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = railkit::testing::freshTestDir("railkit-yaml-lenient"); }
  void TearDown() override { fs::remove_all(dir_); }

  // Writes `text`, asks the libyaml family, compares trees, runs lint.
  void expectLintedLikeKubectl(const std::string& label, const std::string& text, bool pure_python_reads_it) {
    SCOPED_TRACE(label);
    fs::path file = dir_ / "form.yaml";
    std::ofstream(file, std::ios::binary) << text;
    auto oracle = railkit::testing::runShell(
        "python3 " + (railkit::testing::sourceDir() / "tests" / "k8s" / "yaml_oracle.py").string() + " " +
        file.string());
    ASSERT_EQ(oracle.status, 0) << "python3 with python3-yaml (scripts/install-deps.sh) is needed: "
                                << oracle.out;
    auto verdict = nlohmann::json::parse(oracle.out);
    ASSERT_EQ(verdict["c_safe_load"], "ok") << "libyaml refuses it, so kubectl would too";
    if (pure_python_reads_it)
      EXPECT_EQ(verdict["safe_load"], "ok");
    else
      EXPECT_NE(verdict["safe_load"], "ok") << "PyYAML now reads tabs as libyaml does: drop the flag";
    if (kubectlInstalled()) {
      auto kubectl = railkit::testing::runShell("env KUBECONFIG=/dev/null kubectl label --local -f " +
                                                file.string() + " railkit-check=1 -o name");
      EXPECT_EQ(kubectl.status, 0) << kubectl.out;
    }
    auto stream = parseYaml(text, "form.yaml");
    ASSERT_TRUE(stream) << stream.error().message;
    nlohmann::json ours = nlohmann::json::array();
    for (const YamlDocument& doc : stream->documents) ours.push_back(toJson(doc.root));
    EXPECT_EQ(ours, verdict["tree"]);
    auto lint = railkit::testing::runRailkitArgv({"lint", file.string()});
    EXPECT_TRUE(lint.exit_code == 0 || lint.exit_code == 1) << lint.exit_code << ": " << lint.err;
    EXPECT_EQ(lint.err.find("not valid YAML"), std::string::npos) << lint.err;
  }

  fs::path dir_;
};

TEST_F(YamlLenient, FormsKubectlReadsAreLinted) {
  // Container fields complete the pod above; a form that starts a new
  // document stands on its own after it.
  for (const Form& form : forms())
    expectLintedLikeKubectl(form.name, std::string(kPod) + form.text, form.pure_python_reads_it);
}

fs::path lenientDir() {
  return railkit::testing::sourceDir() / "tests" / "k8s" / "fixtures" / "lenient";
}

std::string readFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The upstream files (tests/k8s/fixtures/lenient/README.md names each source).
TEST_F(YamlLenient, UpstreamManifestsAreLinted) {
  size_t count = 0;
  for (const auto& entry : fs::directory_iterator(lenientDir())) {
    if (entry.path().extension() != ".yaml") continue;
    std::string text = readFile(entry.path());
    ASSERT_EQ(text.rfind("# Source: https://github.com/", 0), 0u) << entry.path() << " names no source";
    expectLintedLikeKubectl(entry.path().filename().string(), text, true);
    ++count;
  }
  EXPECT_EQ(count, 5u);
}

// The Volcano user guide's list reads as the six arguments it holds, the
// comments after them left out.
TEST_F(YamlLenient, FlowSequenceClosedLeftOfItsEntriesKeepsItsItems) {
  auto stream = parseYaml(readFile(lenientDir() / "volcano-pytorch-plugin-user-guide.yaml"), "volcano.yaml");
  ASSERT_TRUE(stream) << stream.error().message;
  const YamlNode* args = stream->documents.at(0).root.at({"spec", "plugins", "pytorch"});
  ASSERT_NE(args, nullptr);
  ASSERT_EQ(args->items.size(), 6u);
  EXPECT_EQ(args->items[0].text(), "--master=master");
  EXPECT_EQ(args->items[5].text(), "--wait-master-image=busybox:1.36.1");
  EXPECT_EQ(args->line, 10);
}

std::vector<Finding> invalidCniJson(const std::string& text) {
  std::vector<Finding> found;
  for (const Finding& finding : testing::lintText(text))
    if (finding.id == "cni-config-invalid-json") found.push_back(finding);
  return found;
}

// The macvtap README's CNI JSON lacks a comma: once read, lint says so, both
// as published and with its last line `}'` at the key's indentation (the
// shape the old reader refused).
TEST_F(YamlLenient, MissingCommaInMultiLineSingleQuotedCniConfigIsFound) {
  std::string text = readFile(lenientDir() / "macvtap-cni-readme-nad-missing-comma.yaml");
  std::string at_key = text;
  size_t last = at_key.rfind("    }'");
  ASSERT_NE(last, std::string::npos);
  at_key.replace(last, 6, "  }'");
  for (const std::string& variant : {text, at_key}) {
    auto found = invalidCniJson(variant);
    ASSERT_EQ(found.size(), 1u) << variant;
    EXPECT_EQ(found[0].path, "spec.config");
    EXPECT_EQ(found[0].line, 9);
    EXPECT_NE(found[0].message.find("not valid JSON"), std::string::npos) << found[0].message;
  }
  fs::path file = dir_ / "macvtap.yaml";
  std::ofstream(file, std::ios::binary) << at_key;
  auto lint = railkit::testing::runRailkitArgv({"lint", file.string()});
  EXPECT_EQ(lint.exit_code, 1) << lint.err;
  EXPECT_NE(lint.out.find("macvtap.yaml:9: error [cni-config-invalid-json]"), std::string::npos) << lint.out;
}

}  // namespace
}  // namespace railkit::k8s
