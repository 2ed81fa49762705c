// Every JSON document railkit writes matches the schema of its kind in
// docs/schemas/ (docs/json.md): the commands run on the example node, a
// real NCCL log and manifest, two local bench ranks; each document is
// checked against docs/schemas/<kind with '/' as '.'>.json with valijson.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validator.hpp>

#include "cli/cli_run.h"

namespace fs = std::filesystem;
using railkit::testing::cliScratch;
using railkit::testing::ProcessResult;
using railkit::testing::runRailkit;
using railkit::testing::writeScratchFile;

namespace {

const fs::path kSchemaDir = fs::path(RAILKIT_SOURCE_DIR) / "docs/schemas";

nlohmann::json readJson(const fs::path& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in, nullptr, false);
}

// valijson's loader for "$ref": "finding.json#/...": files beside the schema.
const nlohmann::json* fetchSchema(const std::string& uri) {
  auto doc = std::make_unique<nlohmann::json>(readJson(kSchemaDir / fs::path(uri).filename()));
  if (doc->is_discarded()) return nullptr;
  return doc.release();
}
void freeSchema(const nlohmann::json* doc) {
  delete doc;
}

// Empty when `doc` matches its kind's schema, else every violation, one per line.
std::string violations(const nlohmann::json& doc) {
  std::string kind = doc.value("kind", "");
  if (kind.empty()) return "no kind";
  std::string file = kind;
  std::replace(file.begin(), file.end(), '/', '.');
  nlohmann::json schema_doc = readJson(kSchemaDir / (file + ".json"));
  if (schema_doc.is_discarded()) return "no readable schema docs/schemas/" + file + ".json";
  valijson::Schema schema;
  valijson::SchemaParser parser;
  valijson::adapters::NlohmannJsonAdapter schema_adapter(schema_doc);
  parser.populateSchema(schema_adapter, schema, fetchSchema, freeSchema);
  valijson::Validator validator;
  valijson::ValidationResults results;
  valijson::adapters::NlohmannJsonAdapter target(doc);
  if (validator.validate(schema, target, &results)) return "";
  std::string out;
  valijson::ValidationResults::Error error;
  while (results.popError(error)) {
    std::string where;
    for (const auto& part : error.context) where += part;
    out += where + ": " + error.description + "\n";
  }
  return out;
}

nlohmann::json jsonOf(const std::string& args) {
  ProcessResult r = runRailkit(args);
  EXPECT_LE(r.status, 1) << args << ": " << r.err;
  return nlohmann::json::parse(r.out, nullptr, false);
}

TEST(JsonSchemas, EveryDocumentMatchesTheSchemaOfItsKind) {
  const std::string example = std::string(RAILKIT_SOURCE_DIR) + "/examples/dgx-h100-8gpu";
  const std::string log = std::string(RAILKIT_SOURCE_DIR) + "/tests/logs/fixtures/real";
  const std::string manifest =
      writeScratchFile(cliScratch() / "schema.yaml",
                       "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n"
                       "  - name: c\n    image: i\n    securityContext: {privileged: true}\n");
  const std::string hostfile = writeScratchFile(cliScratch() / "schema-hostfile", "w0 slots=1\n");
  const std::string hosts = writeScratchFile(cliScratch() / "schema-hosts", "127.0.0.1 w0\n");
  const fs::path snapshot = cliScratch() / "schema-snapshot";
  const fs::path rendered = cliScratch() / "schema-render";
  fs::remove_all(snapshot);
  fs::remove_all(rendered);
  std::string logs;
  for (const auto& entry : fs::directory_iterator(log)) {
    if (entry.path().extension() == ".log") logs += " " + entry.path().string();
  }
  const std::string runs[] = {
      "inspect --root " + example + " --json",
      "doctor --root " + example + " --json",
      "doctor --list-rules --json",
      "logs --list-rules --json",
      "lint --list-rules --json",
      "validate --list-rules --json",
      "fabric --list-rules --json",
      "fabric --json " + std::string(RAILKIT_SOURCE_DIR) + "/tests/fixtures/fabric/topograph-su8-leaves.out",
      "fabric --json --lldp " + std::string(RAILKIT_SOURCE_DIR) +
          "/tests/fixtures/fabric/lldp/lldpd-1.0.16-two-leaves.json",
      "explain rail-miscabled --json",
      "explain ompi-coll-conflict --json",
      "explain nccl-timeout --json",
      "explain rdma-nic-count --json",
      "env --root " + example + " --json",
      "lint --json " + manifest,
      "logs --json" + logs,
      "wait-dns --hostfile " + hostfile + " --etc-hosts " + hosts + " --timeout 1 --json",
      "snapshot --root " + example + " --output " + snapshot.string() + " --json",
      "render --image img:1 --launcher mpijob --json",
      "render --image img:1 --launcher jobset --output " + rendered.string() + " --json",
      "render node-prep --json",
      "render exporter --image img:1 --json",
      "bench all_reduce --local 2 -b 1K -e 4K --json",
      "bench all --local 2 -b 1K -e 2K --json",
      "bench p2p --local 2 -b 1K -e 4K --json",
      "validate --local 2 --root " + example +
          " --expect-nics 8 --expect-gpus 8 -b 1K -e 4K --pairs-bytes 4K --json",
      // Both ranks read the same capture: two nodes with LLDP, so the document has its fabric section.
      "validate --local 2 --root " + example + " --lldpctl 'cat " + std::string(RAILKIT_SOURCE_DIR) +
          "/tests/fixtures/fabric/lldp/lldpd-1.0.16-two-leaves.json' -b 1K -e 4K --pairs-bytes 4K --json",
  };
  for (const auto& args : runs) {
    SCOPED_TRACE(args);
    auto doc = jsonOf(args);
    ASSERT_TRUE(doc.is_object());
    EXPECT_EQ(violations(doc), "") << doc.dump().substr(0, 400);
  }
}

// fabric --topology-out writes node-labels.json, a document of its own kind.
TEST(JsonSchemas, FabricNodeLabelsMatchTheirSchema) {
  const fs::path dir = cliScratch() / "schema-topology";
  fs::remove_all(dir);
  auto doc = jsonOf("fabric --json --topology-out " + dir.string() + " " + std::string(RAILKIT_SOURCE_DIR) +
                    "/tests/fixtures/fabric/topograph-su8-leaves.out");
  ASSERT_TRUE(doc.is_object());
  EXPECT_EQ(violations(doc), "");
  EXPECT_EQ(doc["topology_files"].size(), 5u);
  auto labels = readJson(dir / "node-labels.json");
  ASSERT_TRUE(labels.is_object());
  EXPECT_EQ(violations(labels), "") << labels.dump().substr(0, 400);
  labels["nodes"]["x"] = {{"network.topology.nvidia.com/block", "Not A Label"}};
  EXPECT_NE(violations(labels), "");
}

// The schemas are not a formality: a wrong key, type or value is caught.
TEST(JsonSchemas, ViolationsAreCaught) {
  auto doc = jsonOf("doctor --root " + std::string(RAILKIT_SOURCE_DIR) + "/examples/dgx-h100-8gpu --json");
  ASSERT_TRUE(doc.is_object());
  ASSERT_FALSE(doc["findings"].empty());
  ASSERT_EQ(violations(doc), "");
  auto bad = doc;
  bad["findings"][0]["severity"] = "fatal";
  EXPECT_NE(violations(bad).find("findings"), std::string::npos) << violations(bad);
  bad = doc;
  bad["summary"]["errors"] = "3";
  EXPECT_NE(violations(bad), "");
  bad = doc;
  bad["undocumented_key"] = 1;
  EXPECT_NE(violations(bad), "");
  bad = doc;
  bad.erase("railkit_version");
  EXPECT_NE(violations(bad), "");
  bad = doc;
  bad["kind"] = "railkit.nothing/v1";
  EXPECT_NE(violations(bad).find("no readable schema"), std::string::npos);
}

// The per-rank view of logs (docs/logs.md) is held to its schema too: a real
// log with several ranks gives entries, and a wrong type or key is caught.
TEST(JsonSchemas, LogsPerRankEntriesAreChecked) {
  auto doc = jsonOf("logs --json " + std::string(RAILKIT_SOURCE_DIR) +
                    "/tests/logs/fixtures/real/healthy_ib_2_7.log");
  ASSERT_TRUE(doc.is_object());
  ASSERT_TRUE(doc["inputs"][0]["per_rank"].is_array());
  ASSERT_GE(doc["inputs"][0]["per_rank"].size(), 2u);
  ASSERT_EQ(violations(doc), "");
  auto bad = doc;
  bad["inputs"][0]["per_rank"][0]["channels"]["NET"] = "2";
  EXPECT_NE(violations(bad).find("per_rank"), std::string::npos) << violations(bad);
  bad = doc;
  bad["job"]["per_rank"][0]["gdr"] = "yes";
  EXPECT_NE(violations(bad), "");
  bad = doc;
  bad["inputs"][0]["per_rank"][0]["undocumented"] = 1;
  EXPECT_NE(violations(bad), "");
  bad = doc;
  bad["inputs"][0]["per_rank"][0].erase("host");
  EXPECT_NE(violations(bad), "");
}

}  // namespace
