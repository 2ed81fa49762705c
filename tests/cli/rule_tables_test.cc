// Adding a rule is its file plus one line in its domain's list.inc: a rule
// file whose rule is missing from the table would never run, so every rule
// file's id must be in the table (doctor, lint) and every NCCL rule
// function listed (logs).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "doctor/rule.h"
#include "k8s/lint/lint.h"
#include "logs/nccl/rule.h"

namespace fs = std::filesystem;

namespace {

const fs::path kSource = RAILKIT_SOURCE_DIR;

std::string slurp(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The first capture of `pattern` in every .cc file of `dir` (files without a match are helpers).
std::set<std::string> declaredIn(const fs::path& dir, const std::regex& pattern) {
  std::set<std::string> out;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".cc") continue;
    std::string text = slurp(entry.path());
    std::smatch m;
    if (std::regex_search(text, m, pattern)) out.insert(m[1]);
  }
  return out;
}

TEST(RuleTables, EveryDoctorRuleFileIsInTheTable) {
  auto files = declaredIn(kSource / "src/doctor/rules",
                          std::regex(R"re(extern const Rule k\w+ = \{\s*\{\s*"([a-z0-9-]+)")re"));
  std::set<std::string> table;
  for (const auto& r : railkit::doctor::allRules()) table.insert(r.id);
  EXPECT_GE(files.size(), 25u);
  EXPECT_EQ(files, table);
}

TEST(RuleTables, EveryLintRuleFileIsInTheTable) {
  auto files = declaredIn(kSource / "src/k8s/lint/rules",
                          std::regex(R"re(extern const Rule k\w+ = \{\s*\{\s*"([a-z0-9-]+)")re"));
  std::set<std::string> table;
  for (const auto& r : railkit::k8s::allRules()) table.insert(r.id);
  EXPECT_GE(files.size(), 15u);
  EXPECT_EQ(files, table);
}

TEST(RuleTables, EveryNcclLogRuleFileIsInTheTable) {
  auto files = declaredIn(kSource / "src/logs/nccl/rules",
                          std::regex(R"re(NcclRule \w+Rule\(\) \{\s*return \{\s*"([a-z0-9-]+)")re"));
  std::set<std::string> table;
  for (const auto& r : railkit::logs::nccl::allNcclRules()) table.insert(r.id);
  EXPECT_GE(files.size(), 10u);
  EXPECT_EQ(files, table);
}

}  // namespace
