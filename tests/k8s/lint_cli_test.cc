// End to end: exit codes and the JSON document of `railkit lint`.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "cli/cli_run.h"
#include "support/test_support.h"

namespace {

using railkit::testing::ProcessResult;

// stdout and stderr as one stream, in the order railkit wrote them.
ProcessResult run(const std::string& args) {
  return railkit::testing::runRailkit(args + " 2>&1");
}

std::string writeTemp(const std::string& name, const std::string& text) {
  auto path = std::filesystem::temp_directory_path() / ("railkit_k8s_" + name);
  std::ofstream(path) << text;
  return path.string();
}

TEST(K8sLintCli, ExitCodes) {
  std::string clean = writeTemp("clean.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n");
  EXPECT_EQ(run("lint " + clean).status, 0);
  std::string broken = writeTemp("broken.yaml", "a: b\nc: [d\n");
  ProcessResult bad = run("lint " + broken);
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.out.find(broken + ":"), std::string::npos) << bad.out;
  EXPECT_EQ(std::count(bad.out.begin(), bad.out.end(), '\n'), 1) << bad.out;
  std::string dup =
      writeTemp("dup.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {}\ndata: {}\n");
  ProcessResult found = run("lint --json " + dup);
  EXPECT_EQ(found.status, 1);
  auto doc = nlohmann::json::parse(found.out);
  bool seen = false;
  for (const auto& finding : doc["findings"])
    if (finding["id"] == "yaml-duplicate-key") {
      seen = true;
      EXPECT_EQ(finding["line"], 5);
      EXPECT_EQ(finding["object"], "ConfigMap/c");
      EXPECT_EQ(finding["path"], "data");
    }
  EXPECT_TRUE(seen);
}

// One unreadable file does not hide the others' findings: they are printed,
// then one line says what is wrong with the bad file, and the status is 2.
TEST(K8sLintCli, UnreadableFileDoesNotBlankTheOthers) {
  std::string dup =
      writeTemp("dup2.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {}\ndata: {}\n");
  std::string broken = writeTemp("broken2.yaml", "a: b\nc: [d\n");
  ProcessResult both = run("lint " + dup + " " + broken);
  EXPECT_EQ(both.status, 2);
  size_t finding = both.out.find(dup + ":5: error [yaml-duplicate-key]");
  size_t problem = both.out.find("railkit: " + broken + ":");
  EXPECT_NE(finding, std::string::npos) << both.out;
  ASSERT_NE(problem, std::string::npos) << both.out;
  EXPECT_LT(finding, problem) << both.out;
  EXPECT_EQ(both.out.find('\n', problem), both.out.size() - 1) << both.out;  // its one line, last
  ProcessResult json = run("lint --json " + broken + " " + dup);
  EXPECT_EQ(json.status, 2);
  auto doc = nlohmann::json::parse(json.out.substr(0, json.out.rfind("railkit:")), nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << json.out;
  EXPECT_EQ(doc["findings"].size(), 2u) << json.out;  // the duplicate key, the no-schema note
}

TEST(K8sLintCli, RealMistakeWithSchemas) {
  RAILKIT_REQUIRE_SHARED();
  auto shared = railkit::testing::sharedDir();
  ProcessResult result = run("lint --schemas " + (shared / "schemas").string() + " " +
                             (shared / "data/manifests/025-sriovop-doc-rdma-policy.yaml").string());
  EXPECT_EQ(result.status, 1);
  EXPECT_NE(result.out.find("unknown field 'pfName'"), std::string::npos) << result.out;
}

// --schemas repeats, one DIR each (a file after it stays a file): the
// upstream copies and railkit's own CRDs together check a pool's rdmaMode.
TEST(K8sLintCli, SchemasRepeatable) {
  std::string config = writeTemp("poolconfig.yaml",
                                 "apiVersion: sriovnetwork.openshift.io/v1\nkind: SriovNetworkPoolConfig\n"
                                 "metadata: {name: c, namespace: n}\nspec: {rdmaMode: exclusiv}\n");
  std::string own = (railkit::testing::sourceDir() / "schemas").string();
  ProcessResult result = run("lint --schemas " + own + " " + config);
  EXPECT_EQ(result.status, 1) << result.out;
  EXPECT_NE(result.out.find("spec.rdmaMode"), std::string::npos) << result.out;
  RAILKIT_REQUIRE_SHARED();
  auto shared = railkit::testing::sharedDir() / "schemas";
  ProcessResult both = run("lint --schemas " + shared.string() + " " + config + " --schemas " + own);
  EXPECT_EQ(both.status, 1) << both.out;
  EXPECT_NE(both.out.find("'exclusiv' is not one of"), std::string::npos) << both.out;
  ProcessResult upstream_only = run("lint --schemas " + shared.string() + " " + config);
  EXPECT_EQ(upstream_only.status, 0) << upstream_only.out;
  EXPECT_NE(upstream_only.out.find("no schema for sriovnetwork.openshift.io/v1 SriovNetworkPoolConfig"),
            std::string::npos)
      << upstream_only.out;
}

// Where each pod spec was found is in every finding about it: the path in
// the text line and in the JSON document, for an MPIJob of the first
// version (spec.template.spec) and an operator's kind lint has no entry for.
TEST(K8sLintCli, FindingsNameWhereThePodSpecWas) {
  auto real = railkit::testing::sourceDir() / "tests" / "k8s" / "fixtures" / "real";
  std::string v1alpha1 = (real / "mpi-operator-v1alpha1-tf-benchmarks-custom.yaml").string();
  ProcessResult json = run("lint --json " + v1alpha1);
  EXPECT_EQ(json.status, 0) << json.out;  // a warning
  auto doc = nlohmann::json::parse(json.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << json.out;
  size_t shm = 0;
  for (const auto& finding : doc["findings"])
    if (finding["id"] == "shm-default") {
      ++shm;
      EXPECT_EQ(finding["object"], "MPIJob/tensorflow-benchmarks-16-custom");
      EXPECT_EQ(finding["path"], "spec.template.spec.containers[0].volumeMounts");
      EXPECT_EQ(finding["line"], 15);
      EXPECT_NE(finding["message"].get<std::string>().find("on 4 GPUs (an MPIJob)"), std::string::npos)
          << finding["message"];
    }
  EXPECT_EQ(shm, 1u) << json.out;
  ProcessResult text = run("lint " + v1alpha1);
  EXPECT_NE(text.out.find(v1alpha1 + ":15: warning [shm-default]"), std::string::npos) << text.out;
  EXPECT_NE(
      text.out.find("(MPIJob/tensorflow-benchmarks-16-custom spec.template.spec.containers[0].volumeMounts)"),
      std::string::npos)
      << text.out;
  ProcessResult lws = run("lint --json " + (real / "lws-vllm-gpu-leaderworkerset.yaml").string());
  EXPECT_EQ(lws.status, 1) << lws.out;  // the $HUGGING_FACE_HUB_TOKEN placeholders
  auto lws_doc = nlohmann::json::parse(lws.out, nullptr, false);
  ASSERT_FALSE(lws_doc.is_discarded()) << lws.out;
  std::set<std::string> templates;
  for (const auto& finding : lws_doc["findings"])
    if (finding["id"] == "unexpanded-placeholder") {
      std::string path = finding["path"];
      templates.insert(path.substr(0, path.find(".spec.containers")));
    }
  EXPECT_EQ(templates, (std::set<std::string>{"spec.leaderWorkerTemplate.leaderTemplate",
                                              "spec.leaderWorkerTemplate.workerTemplate"}));
}

}  // namespace
