// What railkit writes: --json-out and render --output go to a temporary file that is
// renamed over the name (a new inode; no truncated file under the final name,
// no temporary left behind). And how it fails on the command line: CLI11's
// parse errors are one stderr line with exit 2, --help stays help with exit 0.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/cli_run.h"

namespace fs = std::filesystem;
using railkit::testing::cliScratch;
using railkit::testing::ProcessResult;
using railkit::testing::runRailkit;
using railkit::testing::writeScratchFile;

namespace {

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

ino_t inodeOf(const fs::path& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? st.st_ino : 0;
}

// Names AtomicFile gives its temporary files: ".<name>.tmp-XXXXXX".
int leftoverTemporaries(const fs::path& dir) {
  int count = 0;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().filename().string().find(".tmp-") != std::string::npos) ++count;
  return count;
}

std::string cleanManifest() {
  return writeScratchFile(cliScratch() / "clean.yaml",
                          "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n");
}

TEST(CliOutputs, JsonOutReplacesAnExistingFileWhole) {
  fs::path dir = cliScratch() / "json-out";
  fs::create_directories(dir);
  fs::path out = dir / "result.json";
  // An old result much longer than the new one: writing in place would leave its tail.
  writeScratchFile(out, std::string(200000, 'x'));
  // A second link to the old file: rewriting in place would change it too.
  fs::path keep = dir / "old-result.json";
  fs::remove(keep);
  fs::create_hard_link(out, keep);
  ino_t before = inodeOf(out);
  ProcessResult r = runRailkit("lint --json-out " + out.string() + " " + cleanManifest());
  EXPECT_EQ(r.status, 0) << r.err;
  auto doc = nlohmann::json::parse(slurp(out), nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << slurp(out).substr(0, 300);
  EXPECT_TRUE(doc.contains("findings"));
  EXPECT_NE(inodeOf(out), before) << "the new result was written into the old file, not renamed over it";
  EXPECT_EQ(slurp(keep), std::string(200000, 'x'));
  EXPECT_EQ(fs::status(out).permissions() & fs::perms::others_read, fs::perms::others_read);
  EXPECT_EQ(leftoverTemporaries(dir), 0);
  // The human view still goes to stdout.
  EXPECT_NE(r.out.find("0 error(s)"), std::string::npos) << r.out;
  // Every command goes through the same path: logs too.
  std::string log = writeScratchFile(cliScratch() / "plain.log", "hello\n");
  r = runRailkit("logs --json-out " + out.string() + " " + log);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_FALSE(nlohmann::json::parse(slurp(out), nullptr, false).is_discarded());
  EXPECT_EQ(leftoverTemporaries(dir), 0);
}

TEST(CliOutputs, JsonOutIntoAMissingDirectoryIsOneLine) {
  fs::path out = cliScratch() / "no-such-dir" / "result.json";
  ProcessResult r = runRailkit("lint --json-out " + out.string() + " " + cleanManifest());
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_TRUE(r.oneErrorLine()) << r.err;
  EXPECT_NE(r.err.find("--json-out " + out.string() + ": cannot create a file in"), std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(out.parent_path()));
  // A directory where the file should go.
  r = runRailkit("lint --json-out " + cliScratch().string() + " " + cleanManifest());
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_TRUE(r.oneErrorLine()) << r.err;
  EXPECT_NE(r.err.find("is a directory"), std::string::npos) << r.err;
  EXPECT_EQ(leftoverTemporaries(cliScratch()), 0);
}

// stdout on a full disk (/dev/full: every write fails with ENOSPC): the
// result is incomplete, so the run is an error, not a success, for the JSON
// document and for the human view alike.
TEST(CliOutputs, StdoutOnAFullDiskIsAnError) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full here";
  std::string log = writeScratchFile(cliScratch() / "full.log", "hello\n");
  ProcessResult r = runRailkit("logs --json " + log + " >/dev/full");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_TRUE(r.oneErrorLine()) << r.err;
  EXPECT_NE(r.err.find("writing the JSON document to stdout failed: No space left on device"),
            std::string::npos)
      << r.err;
  r = runRailkit("lint " + cleanManifest() + " >/dev/full");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_TRUE(r.oneErrorLine()) << r.err;
  EXPECT_NE(r.err.find("writing the report to stdout failed: No space left on device"), std::string::npos)
      << r.err;
  // A document many times stdio's buffer: the write fails inside the
  // serialiser, long before the last flush, and the reason still reaches the
  // message (cli/stdout_errors.h).
  const std::string example = std::string(RAILKIT_SOURCE_DIR) + "/examples/dgx-h100-8gpu";
  r = runRailkit("inspect --root " + example + " --json >/dev/full");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("writing the JSON document to stdout failed: No space left on device"),
            std::string::npos)
      << r.err;
  // A result printed outside the JSON/human path: the exporter's rule file.
  r = runRailkit("render exporter --image registry.example.com/railkit:1 --rule-file >/dev/full");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("writing the rule file to stdout failed"), std::string::npos) << r.err;
  // The same runs with a working stdout succeed.
  EXPECT_EQ(runRailkit("logs --json " + log).status, 0);
  EXPECT_EQ(runRailkit("lint " + cleanManifest()).status, 0);
  EXPECT_EQ(runRailkit("render exporter --image registry.example.com/railkit:1 --rule-file").status, 0);
}

TEST(CliOutputs, RenderOutputDirectoryFilesAreRenamedIntoPlace) {
  fs::path profile = cliScratch() / "profile.yaml";
  writeScratchFile(
      profile,
      "name: t\nnamespace: t\nimage: registry.example.com/nccl:1\nmode: rdma-shared\nlauncher: mpijob\n");
  fs::path dir = cliScratch() / "rendered";
  fs::remove_all(dir);
  ProcessResult r = runRailkit("render --profile " + profile.string() + " --output " + dir.string());
  ASSERT_EQ(r.status, 0) << r.err;
  int files = 0;
  fs::path some;
  for (const auto& entry : fs::directory_iterator(dir)) ++files, some = entry.path();
  ASSERT_GT(files, 1);
  std::string first = slurp(some);
  // A stale, longer version of one file is replaced whole, by a new inode.
  writeScratchFile(some, first + std::string(100000, '#'));
  ino_t before = inodeOf(some);
  r = runRailkit("render --profile " + profile.string() + " --output " + dir.string());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(slurp(some), first);
  EXPECT_NE(inodeOf(some), before);
  EXPECT_EQ(leftoverTemporaries(dir), 0);
  // --output naming a file is one line, exit 2.
  fs::path file = cliScratch() / "a-file";
  writeScratchFile(file, "x");
  r = runRailkit("render --profile " + profile.string() + " --output " + file.string());
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_TRUE(r.oneErrorLine()) << r.err;
}

TEST(CliOutputs, ParseErrorsAreOneLineAndExitTwo) {
  struct Case {
    std::string args, expected;
  };
  std::string manifest = cleanManifest();
  for (const Case& c :
       {Case{"frobnicate", "frobnicate"}, Case{"", "subcommand"}, Case{"lint", "files"},
        Case{"render --nodes many", "--nodes"}, Case{"logs --expect-busbw fast x.log", "fast"},
        Case{"lint --no-such-flag " + manifest, "--no-such-flag"},
        Case{"render node-prep --bogus", "--bogus"},
        // Validators: a set of names (bench/bench_options.h), flags that exclude each other.
        Case{"bench all_reduce --local 2 --backend foo",
             "--backend: expected one of tcp ucx nccl, found 'foo'"},
        Case{"bench all_reduce --local 2 -d int128",
             "--datatype: expected one of int8 uint8 int32 uint32 int64 "
             "uint64 float double, found 'int128'"},
        Case{"logs x.log --expect-busbw 1 --expect-line-rate",
             "--expect-busbw excludes --expect-line-rate"}}) {
    SCOPED_TRACE(c.args);
    ProcessResult r = runRailkit(c.args);
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_TRUE(r.oneErrorLine()) << r.err;
    EXPECT_EQ(r.err.rfind("railkit: ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find(c.expected), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("--help)"), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "");
  }
  // The hint names the subcommand whose help lists the option.
  EXPECT_NE(runRailkit("render node-prep --bogus").err.find("(see railkit render node-prep --help)"),
            std::string::npos);
}

TEST(CliOutputs, HelpAndVersionStayExitZero) {
  ProcessResult r = runRailkit("--help");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("lint"), std::string::npos) << r.out;
  EXPECT_GT(std::count(r.out.begin(), r.out.end(), '\n'), 5);
  r = runRailkit("render --help");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("--gpus-per-node"), std::string::npos) << r.out;
  r = runRailkit("--version");
  EXPECT_EQ(r.status, 0) << r.err;
  // CMake's project(VERSION), not a second copy in the source, and the
  // commit: 12 hex digits (and -dirty), or "unknown" outside a checkout.
  EXPECT_THAT(r.out, ::testing::MatchesRegex(std::string("railkit ") + RAILKIT_VERSION +
                                             " \\(git ([0-9a-f]{12}(-dirty)?|unknown)\\)\n"));
}

// --expect-line-rate[=F] is read the same way by bench and logs: the same
// error for the same bad F, and a word after the bare flag stays an argument.
TEST(CliOutputs, ExpectLineRateIsOneFlagInBenchAndLogs) {
  std::string log =
      writeScratchFile(cliScratch() / "lr.log", "host:1:2 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n");
  ProcessResult bench = runRailkit("bench all_reduce --local 2 --expect-line-rate=1.2");
  ProcessResult logs = runRailkit("logs " + log + " --expect-line-rate=1.2 --nic-gbps 100");
  EXPECT_EQ(bench.status, 2) << bench.err;
  EXPECT_EQ(logs.status, 2) << logs.err;
  const std::string expected = "--expect-line-rate=1.2: expected a fraction of the line rate in (0, 1]";
  EXPECT_NE(bench.err.find(expected), std::string::npos) << bench.err;
  EXPECT_NE(logs.err.find(expected), std::string::npos) << logs.err;
  // The bare flag does not swallow the next word: here the log file.
  ProcessResult bare = runRailkit("logs --expect-line-rate " + log + " --nic-gbps 100 --json");
  EXPECT_LE(bare.status, 1) << bare.err;
}

// Every command's --help names railkit (not the binary's path), shows one
// example of that command and the exit statuses.
TEST(CliOutputs, HelpShowsAnExampleAndExitStatuses) {
  for (const std::string command : {"inspect", "snapshot", "doctor", "explain", "env", "logs", "bench",
                                    "render", "lint", "wait-dns", "exporter", "report"}) {
    SCOPED_TRACE(command);
    ProcessResult r = runRailkit(command + " --help");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("Usage: railkit " + command + " "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("Example:\n  "), std::string::npos) << r.out;
    auto example = r.out.find("Example:");
    ASSERT_NE(example, std::string::npos);
    EXPECT_NE(r.out.find("railkit " + command + " ", example), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("Exit status: 0 ok; 1 "), std::string::npos) << r.out;
  }
}

}  // namespace

namespace {

// Every JSON document names its kind and the railkit that wrote it, so a
// reader (report, a script) knows what it holds (docs/json.md).
TEST(CliOutputs, EveryJsonDocumentHasKindAndVersion) {
  const std::string example = std::string(RAILKIT_SOURCE_DIR) + "/examples/dgx-h100-8gpu";
  const std::string log =
      writeScratchFile(cliScratch() / "kind.log", "host:1:2 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n");
  const fs::path snapshot = cliScratch() / "kind-snapshot";
  fs::remove_all(snapshot);
  const fs::path rendered = cliScratch() / "kind-render";
  fs::remove_all(rendered);
  const std::pair<std::string, std::string> cases[] = {
      {"snapshot --root " + example + " --output " + snapshot.string() + " --json", "railkit.snapshot/v1"},
      {"render --image img:1 --launcher mpijob --json", "railkit.render/v1"},
      {"render --image img:1 --launcher jobset --output " + rendered.string() + " --json",
       "railkit.render/v1"},
      {"inspect --root " + example + " --json", "railkit.inspect/v1"},
      {"doctor --root " + example + " --json", "railkit.doctor/v1"},
      {"lint --json " + cleanManifest(), "railkit.lint/v1"},
      {"logs --json " + log, "railkit.logs/v1"},
      {"env --root " + example + " --json", "railkit.env/v1"},
  };
  for (const auto& [args, kind] : cases) {
    ProcessResult r = runRailkit(args);
    EXPECT_LE(r.status, 1) << args << ": " << r.err;
    auto doc = nlohmann::json::parse(r.out, nullptr, false);
    ASSERT_TRUE(doc.is_object()) << args << ": " << r.out.substr(0, 300);
    EXPECT_EQ(doc.value("kind", ""), kind) << args;
    EXPECT_EQ(doc.value("railkit_version", ""), RAILKIT_VERSION) << args;
  }
  // render --json lists the objects, or with --output the files it wrote.
  ProcessResult r = runRailkit("render --image img:1 --launcher mpijob --json");
  auto objects = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_TRUE(objects.contains("objects")) << r.out.substr(0, 300);
  EXPECT_EQ(objects["objects"].back().value("kind", ""), "MPIJob");
  r = runRailkit("render --image img:1 --launcher jobset --output " + rendered.string() + " --json");
  auto files = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_TRUE(files.contains("files")) << r.out.substr(0, 300);
  for (const auto& f : files["files"]) EXPECT_TRUE(fs::exists(rendered / f.value("file", "?"))) << f.dump();
  EXPECT_EQ(files["files"].back().value("kind", ""), "JobSet");
}

}  // namespace
