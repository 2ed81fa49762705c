// Each finding id is declared once, next to its check, and is in its
// domain's table:
// - a rule file whose rule is missing from its list.inc would never run, so
//   the rules the files of doctor, lint and the NCCL log rules define are
//   exactly the ones their list.inc names;
// - every id string literal appears once in src/ (its declaration): a
//   finding builder that spelled the id again, or a second declaration of an
//   id another command raises, fails here;
// - every declaration in src/ is in a table explain reads.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "doctor/rule.h"
#include "k8s/lint/lint.h"
#include "logs/catalogue.h"
#include "logs/nccl/rule.h"
#include "validate/rules.h"

namespace fs = std::filesystem;

namespace {

const fs::path kSource = RAILKIT_SOURCE_DIR;

std::string slurp(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::set<std::string> captures(const std::string& text, const std::regex& pattern) {
  std::set<std::string> out;
  for (std::sregex_iterator it(text.begin(), text.end(), pattern), end; it != end; ++it) out.insert((*it)[1]);
  return out;
}

// The first capture of `pattern` in every .cc file of `dir`.
std::set<std::string> definedIn(const fs::path& dir, const std::regex& pattern) {
  std::set<std::string> out;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".cc") continue;
    auto found = captures(slurp(entry.path()), pattern);
    out.insert(found.begin(), found.end());
  }
  return out;
}

std::set<std::string> listed(const fs::path& list_inc, const std::string& macro) {
  return captures(slurp(list_inc), std::regex(macro + R"re(\((k\w+)\))re"));
}

TEST(RuleTables, EveryDoctorRuleFileIsInTheTable) {
  auto files = definedIn(kSource / "src/doctor/rules", std::regex(R"re(extern const Rule (k\w+) = )re"));
  auto list = listed(kSource / "src/doctor/rules/list.inc", "RAILKIT_DOCTOR_RULE");
  EXPECT_GE(files.size(), 25u);
  EXPECT_EQ(files, list);
  EXPECT_EQ(railkit::doctor::allRules().size(), list.size());
}

TEST(RuleTables, EveryLintRuleFileIsInTheTable) {
  auto files = definedIn(kSource / "src/k8s/lint/rules", std::regex(R"re(extern const Rule (k\w+) = )re"));
  auto list = listed(kSource / "src/k8s/lint/rules/list.inc", "RAILKIT_LINT_RULE");
  EXPECT_GE(files.size(), 15u);
  EXPECT_EQ(files, list);
  EXPECT_EQ(railkit::k8s::allRules().size(), list.size());
}

TEST(RuleTables, EveryNcclLogRuleFileIsInTheTable) {
  auto files =
      definedIn(kSource / "src/logs/nccl/rules", std::regex(R"re(extern const NcclRule (k\w+) = )re"));
  auto list = listed(kSource / "src/logs/nccl/rules/list.inc", "RAILKIT_NCCL_RULE");
  EXPECT_GE(files.size(), 10u);
  EXPECT_EQ(files, list);
  EXPECT_EQ(railkit::logs::nccl::allNcclRules().size(), list.size());
}

// Every id any command can report: what --list-rules and explain read.
std::set<std::string> declaredIds() {
  std::set<std::string> ids;
  for (const auto& r : railkit::doctor::allRules()) ids.insert(r.id);
  for (const auto& r : railkit::k8s::allRules()) ids.insert(r.id);
  for (const auto& r : railkit::logs::logsCatalogue()) ids.insert(r.id);
  for (const auto& r : railkit::validate::allValidateRules()) ids.insert(r.id);
  return ids;
}

// Every source file of src/ by path relative to the tree.
std::map<std::string, std::string> sources() {
  std::map<std::string, std::string> out;
  for (const auto& entry : fs::recursive_directory_iterator(kSource / "src")) {
    const auto ext = entry.path().extension();
    if (ext == ".cc" || ext == ".h" || ext == ".inc")
      out[fs::relative(entry.path(), kSource).generic_string()] = slurp(entry.path());
  }
  return out;
}

// Where the same spelling is another word (paths under these prefixes):
// lint's id `schema` is also the key of a CRD version's schema and the label
// of a schema file read; `host-network` is also a render mode.
const std::map<std::string, std::vector<std::string>> kOtherMeaning = {{"schema", {"src/k8s/schema.cc"}},
                                                                       {"host-network", {"src/k8s/render/"}}};

bool otherMeaning(const std::string& id, const std::string& path) {
  auto it = kOtherMeaning.find(id);
  if (it == kOtherMeaning.end()) return false;
  for (const auto& prefix : it->second)
    if (path.rfind(prefix, 0) == 0) return true;
  return false;
}

std::size_t count(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1)) ++n;
  return n;
}

TEST(RuleTables, EveryIdLiteralAppearsOnceInSrc) {
  auto ids = declaredIds();
  ASSERT_GE(ids.size(), 60u);
  auto files = sources();
  ASSERT_GE(files.size(), 100u);
  for (const auto& id : ids) {
    const std::string literal = "\"" + id + "\"";
    std::vector<std::string> where;
    for (const auto& [path, text] : files) {
      if (otherMeaning(id, path)) continue;
      for (std::size_t n = count(text, literal); n > 0; --n) where.push_back(path);
    }
    EXPECT_EQ(where.size(), 1u) << literal << " appears in: " << ::testing::PrintToString(where)
                                << " (declare it once; findings take the id from the declaration)";
  }
}

// The explanation says why and the fix how, apart: `explain` prints one
// after the other, --json and the generated docs carry them as two fields.
TEST(RuleTables, EveryRuleSaysWhyAndHowToFixApart) {
  std::vector<const railkit::RuleInfo*> all;
  for (const auto& r : railkit::doctor::allRules()) all.push_back(&r);
  for (const auto& r : railkit::k8s::allRules()) all.push_back(&r);
  for (const auto& r : railkit::logs::logsCatalogue()) all.push_back(&r);
  for (const auto& r : railkit::validate::allValidateRules()) all.push_back(&r);
  ASSERT_GE(all.size(), 60u);
  for (const railkit::RuleInfo* r : all) {
    const std::string explain = r->explain, fix = r->fix;
    EXPECT_GT(explain.size(), 80u) << r->id;
    EXPECT_EQ(fix.rfind("Fix", 0), 0u) << r->id << ": the fix starts with `Fix`";
    EXPECT_EQ(explain.find("\nFix"), std::string::npos) << r->id << ": a fix left in the explanation";
  }
}

// A declaration, {"id", Severity::k...: a RuleInfo, alone or as the head of a rule.
TEST(RuleTables, EveryDeclarationIsInATable) {
  auto ids = declaredIds();
  const std::regex declaration(R"re(\{\s*"([a-z0-9-]+)",\s*Severity::k)re");
  std::size_t declarations = 0;
  for (const auto& [path, text] : sources())
    for (const auto& id : captures(text, declaration)) {
      ++declarations;
      EXPECT_TRUE(ids.count(id)) << path << " declares " << id
                                 << ", which no table lists: explain and --list-rules would not know it";
    }
  EXPECT_EQ(declarations, ids.size());
}

}  // namespace
