// Each finding id is declared once, next to its check, and is in its
// domain's table:
// - a rule file whose rule is missing from its list.inc would never run, so
//   the rules the files of doctor, lint and the NCCL log rules define are
//   exactly the ones their list.inc names;
// - every id string literal appears once in src/ (its declaration): a
//   finding builder that spelled the id again, or a second declaration of an
//   id another command raises, fails here;
// - every declaration in src/ is in a table explain reads.
//
// The reference tables of the docs (the rule tables of doctor, lint and logs,
// the option tables of bench and validate, render's list of modes, the
// exporter's metric families) are generated from the same
// declarations: ReferenceTables fails when a committed table differs, naming
// the file and its first differing line. With RAILKIT_WRITE_DOCS=1 it
// rewrites them instead (`make docs`).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "bench/bench_options.h"
#include "core/finding.h"
#include "doctor/rule.h"
#include "exporter/families.h"
#include "fabric/check.h"
#include "k8s/lint/lint.h"
#include "k8s/render/profile.h"
#include "logs/catalogue.h"
#include "logs/nccl/rule.h"
#include "support/process.h"
#include "validate/rules.h"
#include "validate/validate_options.h"

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

TEST(RuleTables, EveryFabricCheckFileIsInTheTable) {
  auto files =
      definedIn(kSource / "src/fabric/rules", std::regex(R"re(extern const FabricCheck (k\w+) = )re"));
  auto list = listed(kSource / "src/fabric/rules/list.inc", "RAILKIT_FABRIC_CHECK");
  EXPECT_GE(files.size(), 5u);
  EXPECT_EQ(files, list);
  EXPECT_EQ(railkit::fabric::allFabricChecks().size(), list.size());
}

// Every id any command can report: what --list-rules and explain read.
std::set<std::string> declaredIds() {
  std::set<std::string> ids;
  for (const auto& r : railkit::doctor::allRules()) ids.insert(r.id);
  for (const auto& r : railkit::k8s::allRules()) ids.insert(r.id);
  for (const auto& r : railkit::logs::logsCatalogue()) ids.insert(r.id);
  for (const auto& r : railkit::validate::allValidateRules()) ids.insert(r.id);
  for (const auto& r : railkit::fabric::allFabricChecks()) ids.insert(r.id);
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
  for (const auto& r : railkit::fabric::allFabricChecks()) all.push_back(&r);
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

// A table cell: pipes escaped, one line.
std::string cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') {
      out += "\\|";
    } else {
      out += c == '\n' ? ' ' : c;
    }
  }
  return out;
}

// What --list-rules prints, as markdown: one row per declared id.
template <typename Table>
std::string ruleTable(const Table& table) {
  std::string out = "| id | severity | title |\n| --- | --- | --- |\n";
  for (const railkit::RuleInfo& r : table)
    out += "| `" + std::string(r.id) + "` | " + railkit::severityName(r.severity) + " | " + cell(r.title) +
           " |\n";
  return out;
}

// One option's row of a docs table.
std::string optionRow(const railkit::bench::OptionSpec& o, railkit::bench::Command command) {
  using railkit::bench::OptionCheck;
  std::string flags;
  std::stringstream names(railkit::bench::optionLabel(o));
  for (std::string one; std::getline(names, one, '/');) flags += (flags.empty() ? "`" : ", `") + one + "`";
  std::string value = railkit::bench::defaultText(o, command);
  if (o.check == OptionCheck::kSwitchWithValue) {
    flags.insert(flags.size() - 1, "[=F]");
    value = std::string("F = ") + o.switch_value;
  }
  std::string help =
      command == railkit::bench::Command::kValidate && o.validate_help ? o.validate_help : o.help;
  return "| " + flags + " | " + (value.empty() ? "" : "`" + value + "`") + " | " +
         cell(railkit::bench::expectedText(o)) + " | " + cell(help + o.details) + " |\n";
}

const std::string kOptionHeader = "| flag | default | accepts | meaning |\n| --- | --- | --- | --- |\n";

// bench's options (bench/bench_options.h).
std::string benchOptionTable() {
  std::string out = kOptionHeader;
  for (const auto* o : railkit::bench::optionsOf(railkit::bench::Command::kBench))
    out += optionRow(*o, railkit::bench::Command::kBench);
  return out;
}

// validate's own options (validate/validate_options.h), then the bench rows it shares.
std::string validateOptionTable() {
  using railkit::bench::Command;
  std::string out = kOptionHeader;
  for (const auto& o : railkit::validate::validateOptions()) out += optionRow(o, Command::kValidate);
  for (const auto* o : railkit::bench::optionsOf(Command::kValidate))
    out += optionRow(*o, Command::kValidate);
  return out;
}

// The render modes in the order of their table (k8s/render/modes.cc), with
// the columns a profile's reader needs.
std::string modeList() {
  namespace render = railkit::k8s::render;
  std::string out =
      "The modes, from the renderer table in `src/k8s/render/modes.cc`; the first is the default.\n\n"
      "| mode | default resourceName | `render node-prep` writes `ib_core-netns-exclusive.conf` |\n"
      "| --- | --- | --- |\n";
  for (const char* mode : render::modeNames()) {
    std::string resource = render::defaultResourceName(mode);
    out += "| `" + std::string(mode) + "` | " + (resource.empty() ? "none" : "`" + resource + "`") + " | " +
           (render::wantsExclusiveRdmaNetns(mode) ? "yes" : "no") + " |\n";
  }
  return out;
}

// The profile example's comment on `mode:` lists the modes of the table.
TEST(ReferenceTables, RenderProfileCommentListsTheModes) {
  std::string modes;
  for (const char* mode : railkit::k8s::render::modeNames())
    modes += (modes.empty() ? "" : " | ") + std::string(mode);
  std::string doc = slurp(kSource / "docs/render.md");
  std::smatch line;
  ASSERT_TRUE(std::regex_search(doc, line, std::regex(R"re(\n +mode: [a-z-]+ +# ([^\n]*)\n)re")))
      << "docs/render.md: no profile line 'mode: ... # ...'";
  EXPECT_EQ(line[1].str(), modes)
      << "docs/render.md: the profile comment on mode: lists other modes than the table";
}

// The exporter's metric families (exporter/families.h), in /metrics order.
std::string metricTable() {
  std::string out = "| metric | type | labels | meaning |\n| --- | --- | --- | --- |\n";
  for (const auto& f : railkit::exporter::metricFamilies()) {
    std::string labels(f.labels);
    for (size_t at = labels.find(','); at != std::string::npos; at = labels.find(',', at + 2))
      labels.replace(at, 1, ", ");
    std::string meaning(f.help);
    if (!f.docs_note.empty()) meaning += " " + std::string(f.docs_note);
    out += "| `" + std::string(f.name) + "` | " + std::string(f.type) + " | " + labels + " | " +
           cell(meaning) + " |\n";
  }
  return out;
}

struct Region {
  std::string file;  // relative to the source tree
  std::string name;  // <!-- generated: NAME -->
  std::string body;
};

std::vector<Region> generatedRegions() {
  return {
      {"docs/doctor.md", "doctor-rules", ruleTable(railkit::doctor::allRules())},
      {"docs/lint.md", "lint-rules", ruleTable(railkit::k8s::allRules())},
      {"docs/logs.md", "logs-rules", ruleTable(railkit::logs::logsCatalogue())},
      {"docs/fabric.md", "fabric-rules", ruleTable(railkit::fabric::allFabricChecks())},
      {"docs/bench.md", "bench-options", benchOptionTable()},
      {"docs/validate.md", "validate-options", validateOptionTable()},
      {"docs/render.md", "render-modes", modeList()},
      {"docs/exporter.md", "exporter-metrics", metricTable()},
  };
}

const std::string kEndMarker = "<!-- end generated -->";

struct Comparison {
  std::string error;      // the region is missing or differs: "docs/x.md:12: ..."
  std::string rewritten;  // the file with the generated body in place
};

// Compares the region `name` of `text` (from `file`) with `body`.
Comparison compareRegion(const std::string& file, const std::string& text, const std::string& name,
                         const std::string& body) {
  std::string begin = "<!-- generated: " + name + " -->\n";
  auto start = text.find(begin);
  auto end = start == std::string::npos ? start : text.find(kEndMarker, start);
  if (end == std::string::npos)
    return {file + ": no region '" + begin.substr(0, begin.size() - 1) + "' ... '" + kEndMarker + "'", text};
  start += begin.size();
  std::string committed = text.substr(start, end - start);
  std::string rewritten = text.substr(0, start) + body + text.substr(end);
  if (committed == body) return {"", rewritten};
  std::istringstream a(committed), b(body);
  std::string line_a, line_b;
  int line = static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(start), '\n')) + 1;
  while (true) {
    bool more_a = static_cast<bool>(std::getline(a, line_a));
    bool more_b = static_cast<bool>(std::getline(b, line_b));
    if (!more_a) line_a = "(end of the table)";
    if (!more_b) line_b = "(end of the table)";
    if (line_a != line_b || (!more_a && !more_b)) break;
    ++line;
  }
  return {file + ":" + std::to_string(line) +
              ": the committed table differs from the declarations (make docs " +
              "rewrites it)\n  committed: " + line_a + "\n  generated: " + line_b,
          rewritten};
}

TEST(ReferenceTables, CompareNamesTheFirstDifferingLine) {
  std::string doc = "# t\n<!-- generated: x -->\n| a |\n| b |\n" + kEndMarker + "\ntail\n";
  EXPECT_EQ(compareRegion("d.md", doc, "x", "| a |\n| b |\n").error, "");
  auto c = compareRegion("d.md", doc, "x", "| a |\n| c |\n");
  EXPECT_EQ(c.error.rfind("d.md:4: ", 0), 0u) << c.error;
  EXPECT_NE(c.error.find("committed: | b |"), std::string::npos) << c.error;
  EXPECT_NE(c.error.find("generated: | c |"), std::string::npos) << c.error;
  EXPECT_EQ(c.rewritten, "# t\n<!-- generated: x -->\n| a |\n| c |\n" + kEndMarker + "\ntail\n");
  EXPECT_NE(compareRegion("d.md", doc, "x", "| a |\n").error.find("d.md:4: "), std::string::npos);
  EXPECT_NE(compareRegion("d.md", doc, "y", "").error.find("no region"), std::string::npos);
}

// A table's default the CLI would refuse would show in --help and the docs
// and fail every run that leaves the option out.
TEST(ReferenceTables, ValidateDefaultsPassTheirOwnChecks) {
  auto byName = [](const std::string& names) {
    for (const auto& o : railkit::validate::validateOptions())
      if (o.names == names) return o;
    ADD_FAILURE() << "no row " << names;
    return railkit::validate::ValidateOption{};
  };
  railkit::validate::ValidateFlags flags;
  EXPECT_EQ(flags.pairs_iters, std::stoi(byName("--pairs-iters").bench_default));
  EXPECT_EQ(flags.pairs_bytes, byName("--pairs-bytes").bench_default);
  int with_default = 0;
  for (const auto& o : railkit::validate::validateOptions()) {
    std::string d = railkit::bench::defaultText(o, railkit::bench::Command::kValidate);
    if (d.empty()) continue;
    ++with_default;
    EXPECT_EQ(railkit::bench::checkOptionText(o, d), "") << o.names;
  }
  EXPECT_GE(with_default, 5);
  EXPECT_NE(railkit::bench::checkOptionText(byName("--pairs-bytes"), "0"), "");
  EXPECT_NE(railkit::bench::checkOptionText(byName("--pairs-bytes"), "5G"), "");
  EXPECT_EQ(railkit::bench::checkOptionText(byName("--pairs-bytes"), "4G"), "");
}

// The CLI registers from the tables: bench's --help shows every bench row,
// validate's its own rows and the shared ones only.
TEST(ReferenceTables, HelpShowsTheTablesRows) {
  using railkit::bench::OptionUse;
  auto bench = railkit::testing::runRailkitArgv({"bench", "--help"});
  auto validate = railkit::testing::runRailkitArgv({"validate", "--help"});
  ASSERT_EQ(bench.exit_code, 0) << bench.err;
  ASSERT_EQ(validate.exit_code, 0) << validate.err;
  auto shown = [](const std::string& help, const std::string& names) {
    return help.find("  " + names + " ") != std::string::npos ||
           help.find("  " + names + "{") != std::string::npos;
  };
  for (const auto& o : railkit::bench::benchOptions()) {
    EXPECT_TRUE(shown(bench.out, o.names)) << o.names;
    EXPECT_EQ(shown(validate.out, o.names), o.use == OptionUse::kBoth) << o.names;
  }
  for (const auto& o : railkit::validate::validateOptions())
    EXPECT_TRUE(shown(validate.out, o.names)) << o.names;
}

TEST(ReferenceTables, CommittedDocsMatchTheDeclarations) {
  const bool write = std::getenv("RAILKIT_WRITE_DOCS") != nullptr;
  for (const auto& region : generatedRegions()) {
    fs::path path = kSource / region.file;
    auto c = compareRegion(region.file, slurp(path), region.name, region.body);
    if (c.error.empty()) continue;
    if (write && c.error.find("no region") == std::string::npos) {
      std::ofstream(path) << c.rewritten;
      std::printf("rewrote %s (%s)\n", region.file.c_str(), region.name.c_str());
      continue;
    }
    ADD_FAILURE() << c.error;
  }
}

}  // namespace
