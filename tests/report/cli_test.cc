// railkit report end to end: an input it cannot use is one line on stderr
// and exit 2, and the page is still written from the others.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "cli/cli_run.h"

namespace railkit::testing {
namespace {

std::string fixture(const std::string& name) {
  return (sourceDir() / "tests" / "report" / "fixtures" / name).string();
}

std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

size_t lines(const std::string& text) {
  return static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
}

TEST(ReportCli, UnknownInputsAreNamedOnStderrAndTheOthersStillReported) {
  auto junk = writeScratchFile("junk.txt", "hello, this is no benchmark output\n");
  auto explain =
      writeScratchFile("explain.json", R"({"kind": "railkit.explain/v1", "railkit_version": "0.1.0"})");
  auto out = (cliScratch() / "mixed.html").string();
  ProcessResult r = runRailkit("report " + junk + " " + fixture("bench-all-reduce-local2.json") + " " +
                               explain + " -o " + out);
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(lines(r.err), 2u) << r.err;
  EXPECT_NE(r.err.find("railkit: " + junk + ": "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("railkit: " + explain + ": kind \"railkit.explain/v1\""), std::string::npos) << r.err;
  std::string html = slurp(out);
  EXPECT_NE(html.find("<section id=\"busbw\">"), std::string::npos);
  EXPECT_NE(html.find("not read: " + junk), std::string::npos);
  EXPECT_NE(r.out.find("wrote " + out), std::string::npos) << r.out;
}

TEST(ReportCli, NothingReadableWritesNoPage) {
  auto out = cliScratch() / "none.html";
  ProcessResult r = runRailkit("report " + (cliScratch() / "absent.json").string() + " -o " + out.string());
  EXPECT_EQ(r.status, 2);
  EXPECT_FALSE(std::filesystem::exists(out));
  EXPECT_NE(r.err.find("absent.json"), std::string::npos) << r.err;
}

TEST(ReportCli, AllKnownInputsExitZeroAndDashWritesStdout) {
  ProcessResult r = runRailkit("report " + fixture("validate-local4.json") + " " +
                               fixture("bench-pairs-local4.json") + " --title 'cluster <A>' -o -");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  EXPECT_EQ(r.out.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(r.out.find("<title>cluster &lt;A&gt;</title>"), std::string::npos);
  for (const char* id : {"verdict", "busbw", "pairs", "fleet", "topology"})
    EXPECT_NE(r.out.find(std::string("<section id=\"") + id + "\">"), std::string::npos) << id;
  // Self-contained: nothing that could load anything.
  for (const char* bad : {"<script", "http:", "https:", "url(", " src=", "@import", "<link"})
    EXPECT_EQ(r.out.find(bad), std::string::npos) << bad;
}

TEST(ReportCli, DashReadsADocumentFromStdin) {
  ProcessResult r = runRailkit("report - -o - < " + fixture("bench-pairs-local4.json"));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("<section id=\"pairs\">"), std::string::npos);
  EXPECT_NE(r.out.find("&lt;stdin&gt; (bench)"), std::string::npos);
}

TEST(ReportCli, TextInputsGoThroughTheLogsReader) {
  RAILKIT_REQUIRE_SHARED();
  std::string log = (sharedDir() / "data" / "nccl-logs" / "036.log").string();
  ASSERT_TRUE(std::filesystem::exists(log)) << log;
  ProcessResult r = runRailkit("report " + log + " -o -");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("<section id=\"busbw\">"), std::string::npos);
  EXPECT_NE(r.out.find("<section id=\"logs\">"), std::string::npos);
  EXPECT_NE(r.out.find("nccl-no-gdr"), std::string::npos);
}

// mpirun --tag-output starts each line with "[1,9]<stdout>:": a log, not JSON.
TEST(ReportCli, AnMpirunTaggedLogIsReadAsALog) {
  RAILKIT_REQUIRE_SHARED();
  std::string log = (sharedDir() / "data" / "nccl-logs" / "035.log").string();
  ASSERT_TRUE(std::filesystem::exists(log)) << log;
  ProcessResult r = runRailkit("report " + log + " -o -");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  EXPECT_NE(r.out.find("<section id=\"logs\">"), std::string::npos);
  // A top-level JSON array is no railkit document either: it is read as text
  // and said to be no known input, never "starts like JSON".
  auto array = writeScratchFile("array.json", "[1, 2, 3]\n");
  ProcessResult a = runRailkit("report " + array + " -o -");
  EXPECT_EQ(a.status, 2);
  EXPECT_EQ(a.err.find("starts like JSON"), std::string::npos) << a.err;
}

}  // namespace
}  // namespace railkit::testing
