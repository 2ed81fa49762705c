// `railkit doctor` and `railkit explain` end to end through the built binary:
// the JSON contract of PRODUCT.md, exit codes (0 healthy, 1 error findings,
// 2 unusable arguments), the shipped example node, and bad input that must be
// reported, never crash.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <set>

#include "cli/cli_run.h"
#include "k8s/lint/lint.h"
#include "support/node_builder.h"
#include "support/node_scratch.h"
#include "support/test_support.h"

namespace fs = std::filesystem;
using nlohmann::json;
using railkit::testing::NodeBuilder;

namespace {

constexpr const char* kScratch = "railkit-doctor-cli";
[[maybe_unused]] ::testing::Environment* const kScratchCleanup =
    ::testing::AddGlobalTestEnvironment(new railkit::testing::NodeScratchCleanup(kScratch));

using railkit::testing::ProcessResult;

fs::path tempRoot() {
  static fs::path root = [] {
    fs::path d = railkit::testing::nodeScratch(kScratch);
    fs::remove_all(d);
    fs::create_directories(d);
    return d;
  }();
  return root;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

ProcessResult run(const std::string& args) {
  return railkit::testing::runRailkit(args);
}

fs::path tree(const std::string& name, const NodeBuilder& node) {
  fs::path dir = tempRoot() / name;
  node.write(dir);
  return dir;
}

// The finding shape of PRODUCT.md, checked field by field.
void expectFindingShape(const json& f) {
  ASSERT_TRUE(f.is_object()) << f;
  for (const char* key : {"id", "severity", "subject", "message", "fix"}) {
    ASSERT_TRUE(f.contains(key)) << key << " missing in " << f;
    EXPECT_TRUE(f[key].is_string()) << key << " in " << f;
  }
  EXPECT_TRUE(std::set<std::string>({"error", "warning", "info"}).count(f["severity"].get<std::string>()))
      << f;
  ASSERT_TRUE(f.contains("evidence") && f["evidence"].is_array()) << f;
  EXPECT_FALSE(f["evidence"].empty()) << f;
  for (const auto& e : f["evidence"]) {
    ASSERT_TRUE(e.contains("source") && e["source"].is_string()) << e;
    ASSERT_TRUE(e.contains("text") && e["text"].is_string()) << e;
    if (e.contains("line")) {
      EXPECT_TRUE(e["line"].is_number_integer()) << e;
    }
  }
}

std::set<std::string> ids(const json& doc) {
  std::set<std::string> out;
  for (const auto& f : doc["findings"]) out.insert(f["id"].get<std::string>());
  return out;
}

TEST(DoctorCli, HealthyNodeJsonExit0) {
  for (const auto& [name, node] :
       {std::pair{"dgx", NodeBuilder::healthyDgxH100()}, std::pair{"roce", NodeBuilder::healthyRoce()}}) {
    auto r = run("doctor --root " + tree(std::string("healthy-") + name, node).string() + " --json");
    EXPECT_EQ(r.status, 0) << r.out << r.err;
    auto doc = json::parse(r.out);
    ASSERT_TRUE(doc["findings"].is_array());
    EXPECT_TRUE(doc["findings"].empty()) << doc.dump(2);
    EXPECT_EQ(doc["summary"]["errors"], 0);
    EXPECT_EQ(doc["summary"]["warnings"], 0);
  }
}

TEST(DoctorCli, ErrorFindingsJsonContractExit1) {
  auto node = NodeBuilder::healthyRoce();
  node.dropCapIpcLock().setShmKib(65536).setEnv("NCCL_IB_GID_INDEX", "2").setBridgeConfigSize(256);
  auto r = run("doctor --root " + tree("broken-roce", node).string() + " --json");
  EXPECT_EQ(r.status, 1) << r.err;
  auto doc = json::parse(r.out);
  ASSERT_TRUE(doc.contains("findings"));
  for (const auto& f : doc["findings"]) expectFindingShape(f);
  auto found = ids(doc);
  for (const char* id : {"ipc-lock-missing", "shm-too-small", "nccl-gid-index-invalid", "pcie-acs-unknown"})
    EXPECT_TRUE(found.count(id)) << id << " missing in " << doc.dump(2);
  // Ordered by severity: errors first, info last.
  int last = 0;
  for (const auto& f : doc["findings"]) {
    std::string s = f["severity"];
    int rank = s == "error" ? 0 : s == "warning" ? 1 : 2;
    EXPECT_GE(rank, last) << doc.dump(2);
    last = rank;
  }
  EXPECT_EQ(doc["summary"]["errors"].get<int>() + doc["summary"]["warnings"].get<int>() +
                doc["summary"]["info"].get<int>(),
            static_cast<int>(doc["findings"].size()));
}

TEST(DoctorCli, WarningsOnlyExit0) {
  auto r = run("doctor --root " +
               tree("warn", NodeBuilder::healthyDgxH100().unloadModule("nvidia_peermem")).string());
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("[gpudirect-module-missing]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("fix: "), std::string::npos) << r.out;
}

TEST(DoctorCli, ShippedExampleNode) {
  fs::path example = railkit::testing::sourceDir() / "examples" / "dgx-h100-8gpu";
  auto r = run("doctor --root " + example.string() + " --json");
  EXPECT_EQ(r.status, 1) << r.err;
  auto doc = json::parse(r.out);
  auto found = ids(doc);
  for (const char* id : {"memlock-limit", "shm-too-small", "gpudirect-module-missing", "rdma-port-down"})
    EXPECT_TRUE(found.count(id)) << id << " missing in " << doc.dump(2);
  auto human = run("doctor --root " + example.string());
  EXPECT_EQ(human.status, 1);
  EXPECT_NE(human.out.find("ERRORS:"), std::string::npos) << human.out;
}

TEST(DoctorCli, JsonOutWritesFileAndPrintsHuman) {
  fs::path out = tempRoot() / "doctor.json";
  auto r = run("doctor --root " + tree("jsonout", NodeBuilder::emptyPod()).string() + " --json-out " +
               out.string());
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.out.find("[rdma-no-devices]"), std::string::npos) << r.out;
  auto doc = json::parse(slurp(out));
  EXPECT_TRUE(ids(doc).count("rdma-no-devices"));
}

TEST(DoctorCli, ExplainEveryListedRule) {
  auto list = run("doctor --list-rules --json");
  ASSERT_EQ(list.status, 0) << list.err;
  auto doc = json::parse(list.out);
  ASSERT_GE(doc["rules"].size(), 20u);
  for (const auto& rule : doc["rules"]) {
    std::string id = rule["id"];
    auto r = run("explain " + id);
    EXPECT_EQ(r.status, 0) << id << ": " << r.err;
    EXPECT_EQ(r.out.rfind(id, 0), 0u) << r.out;
    EXPECT_NE(r.out.find("Fix"), std::string::npos) << id;
  }
  auto human = run("doctor --list-rules");
  EXPECT_EQ(human.status, 0);
  EXPECT_NE(human.out.find("pcie-acs-enabled"), std::string::npos);
}

// --list-rules is one flag with one shape in doctor, logs and lint, and
// explain knows every id any of them lists, naming that command.
TEST(DoctorCli, EveryCommandListsItsRulesAndExplainKnowsThem) {
  for (const std::string command : {"doctor", "logs", "lint"}) {
    auto list = run(command + " --list-rules --json");
    ASSERT_EQ(list.status, 0) << command << ": " << list.err;
    auto doc = json::parse(list.out);
    EXPECT_EQ(doc["kind"], "railkit.rules/v1");
    EXPECT_EQ(doc["command"], command);
    ASSERT_GE(doc["rules"].size(), 10u) << command;
    for (const auto& rule : doc["rules"]) {
      std::string id = rule["id"];
      auto r = run("explain " + id + " --json");
      ASSERT_EQ(r.status, 0) << id << ": " << r.err;
      auto why = json::parse(r.out);
      bool named = false;
      for (const auto& by : why["reported_by"]) named = named || by["command"] == command;
      EXPECT_TRUE(named) << id << " listed by " << command << " but explain says " << r.out;
    }
    auto human = run(command + " --list-rules");
    EXPECT_EQ(human.status, 0);
    EXPECT_EQ(std::count(human.out.begin(), human.out.end(), '\n'), static_cast<long>(doc["rules"].size()))
        << human.out;
  }
}

// An id names a problem, not a detector: explain covers lint's ids too.
TEST(DoctorCli, ExplainCoversLintIds) {
  ASSERT_FALSE(railkit::k8s::allRules().empty());
  for (const auto& rule : railkit::k8s::allRules()) {
    auto r = run(std::string("explain ") + rule.id);
    EXPECT_EQ(r.status, 0) << rule.id << ": " << r.err;
    EXPECT_NE(r.out.find("railkit lint"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(rule.title), std::string::npos) << r.out;
    // Lint's own explanation is in explain's document (the text view of an
    // id doctor shares prints doctor's explanation, then lint's line).
    auto doc = json::parse(run(std::string("explain ") + rule.id + " --json").out);
    bool found = false;
    for (const auto& by : doc["reported_by"]) {
      if (by["command"] != "lint") continue;
      found = true;
      EXPECT_EQ(by["explain"], rule.explain) << rule.id;
      EXPECT_EQ(by["fix"], rule.fix) << rule.id;
      EXPECT_EQ(by["severity"], railkit::severityName(rule.severity)) << rule.id;
    }
    EXPECT_TRUE(found) << rule.id;
  }
}

TEST(DoctorCli, ExplainUnknownIsUsageError) {
  auto r = run("explain nosuch");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("nosuch"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

TEST(DoctorCli, MissingRootIsExit2OneLine) {
  auto r = run("doctor --root " + (tempRoot() / "does-not-exist").string());
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_NE(r.err.find("does-not-exist"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

TEST(DoctorCli, RootThatIsAGarbageFileIsExit2) {
  fs::path junk = tempRoot() / "junk.tar.gz";
  std::ofstream(junk) << "this is not a tarball\n";
  auto r = run("doctor --root " + junk.string());
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_FALSE(r.err.empty());
  EXPECT_EQ(r.err.find("terminate"), std::string::npos) << r.err;
}

TEST(DoctorCli, UnknownFlagIsExit2) {
  auto r = run("doctor --no-such-flag");
  EXPECT_EQ(r.status, 2);
}

TEST(DoctorCli, EmptyRootDirectoryReportsNoDevices) {
  fs::path empty = tempRoot() / "empty";
  fs::create_directories(empty);
  auto r = run("doctor --root " + empty.string() + " --json");
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_TRUE(ids(json::parse(r.out)).count("rdma-no-devices"));
}

// Garbage, binary and wrongly sized files everywhere: analysed as far as they
// go, reported, no crash (exit 0 or 1, never a signal or 2).
TEST(DoctorCli, GarbageFilesNeverCrash) {
  fs::path dir = tree("garbage", NodeBuilder::healthyRoce());
  std::mt19937 rng(7);
  auto junk = [&](size_t n) {
    std::string s(n, '\0');
    for (auto& c : s) c = static_cast<char>(rng());
    return s;
  };
  size_t files = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file() || e.is_symlink()) continue;
    std::ofstream(e.path(), std::ios::binary | std::ios::trunc) << junk(files % 5 == 0 ? 0 : 1 + files % 300);
    ++files;
  }
  ASSERT_GT(files, 100u);
  auto r = run("doctor --root " + dir.string() + " --json");
  EXPECT_TRUE(r.status == 0 || r.status == 1) << r.status << r.err;
  auto doc = json::parse(r.out);
  for (const auto& f : doc["findings"]) expectFindingShape(f);
}

TEST(DoctorCli, WrongSizeConfigIsUnknownNotFine) {
  auto node = NodeBuilder::healthyDgxH100();
  fs::path dir = tree("config-size", node);
  // A bridge config of an impossible size (neither 64, 256 nor 4096).
  size_t changed = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.path().filename() != "config" || e.is_symlink()) continue;
    std::string data = slurp(e.path());
    if (data.size() < 12 || static_cast<unsigned char>(data[0x0e]) != 0x01) continue;  // bridges only
    std::ofstream(e.path(), std::ios::binary | std::ios::trunc) << data.substr(0, 1000);
    ++changed;
  }
  ASSERT_GT(changed, 0u);
  auto r = run("doctor --root " + dir.string() + " --json");
  EXPECT_EQ(r.status, 0) << r.err;
  auto doc = json::parse(r.out);
  ASSERT_TRUE(ids(doc).count("pcie-acs-unknown")) << doc.dump(2);
  EXPECT_FALSE(ids(doc).count("pcie-acs-enabled"));
  for (const auto& f : doc["findings"])
    if (f["id"] == "pcie-acs-unknown") {
      EXPECT_NE(f.dump().find("1000 bytes"), std::string::npos) << f;
    }
}

TEST(DoctorCli, AcsLoopInConfigDoesNotHang) {
  auto node = NodeBuilder::healthyDgxH100();
  node.spec().bridges[0].acs_capable = false;
  fs::path dir = tree("config-loop", node);
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.path().filename() != "config" || e.is_symlink()) continue;
    std::string data = slurp(e.path());
    if (data.size() != 4096 || static_cast<unsigned char>(data[0x0e]) != 0x01) continue;
    // Extended capability at 0x100 whose next pointer is itself.
    data[0x100] = 0x01, data[0x101] = 0x00, data[0x102] = 0x01, data[0x103] = 0x10;
    std::ofstream(e.path(), std::ios::binary | std::ios::trunc) << data;
  }
  auto r = run("doctor --root " + dir.string() + " --json");
  EXPECT_TRUE(r.status == 0 || r.status == 1) << r.err;
  EXPECT_FALSE(ids(json::parse(r.out)).count("pcie-acs-enabled"));
}

}  // namespace
