// Adding a rule is its file plus one line in its domain's list.inc: a rule
// file whose rule is missing from the table would never run, so every rule
// file's id must be in the table (doctor, lint) and every NCCL rule
// function listed (logs).
//
// The reference tables of the docs (the rule tables of doctor, lint and logs,
// the option tables of bench and validate, render's list of modes) are generated from the same
// declarations: ReferenceTables fails when a committed table differs, naming
// the file and its first differing line. With RAILKIT_WRITE_DOCS=1 it
// rewrites them instead (`make docs`).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "bench/bench_options.h"
#include "core/finding.h"
#include "doctor/rule.h"
#include "k8s/lint/lint.h"
#include "k8s/render/profile.h"
#include "logs/catalogue.h"
#include "logs/nccl/rule.h"
#include "support/run_railkit.h"
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

// The render modes in the order of their table (k8s/render/modes.cc).
std::string modeList() {
  std::string out =
      "The modes, from the renderer table in `src/k8s/render/modes.cc`; the first is the default:";
  const char* separator = " ";
  for (const char* mode : railkit::k8s::render::modeNames()) {
    out += separator + std::string("`") + mode + "`";
    separator = ", ";
  }
  return out + ".\n";
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
      {"docs/bench.md", "bench-options", benchOptionTable()},
      {"docs/validate.md", "validate-options", validateOptionTable()},
      {"docs/render.md", "render-modes", modeList()},
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
  auto bench = railkit::testing::runRailkit({"bench", "--help"});
  auto validate = railkit::testing::runRailkit({"validate", "--help"});
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
