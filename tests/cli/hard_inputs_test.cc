// Inputs that never end or are not files at all: a command that expects a
// file refuses FIFOs, devices and directories at once (exit 2, one line that
// says what was expected and what was found) and caps what it reads. A hang
// shows as exit 124 from `timeout`; a read of /dev/zero to the end as 134
// (bad_alloc) or a long run.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "cli/cli_run.h"

namespace fs = std::filesystem;
using railkit::testing::cliScratch;
using railkit::testing::makeFifo;
using railkit::testing::ProcessResult;
using railkit::testing::runRailkit;
using railkit::testing::writeScratchFile;

namespace {

// Exit 2, quickly, one stderr line holding `expected`.
void expectRefused(const std::string& args, const std::string& expected) {
  SCOPED_TRACE(args);
  ProcessResult r = runRailkit(args);
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_TRUE(r.oneErrorLine()) << r.err;
  EXPECT_NE(r.err.find(expected), std::string::npos) << r.err;
  // The refusal comes before any read: well under a second, 30 s allows a loaded machine.
  EXPECT_LT(r.seconds, 30.0);
}

const char* kProfile =
    "name: t\nnamespace: t\nimage: registry.example.com/nccl:1\nnodes: 2\ngpusPerNode: 8\n"
    "mode: rdma-shared\nlauncher: mpijob\n";

TEST(CliHardInputs, LintRefusesFifoDeviceAndDirectory) {
  std::string fifo = makeFifo(cliScratch() / "manifest.fifo");
  expectRefused("lint " + fifo, "manifest " + fifo + ": expected a regular file, found a FIFO");
  expectRefused("lint /dev/zero", "manifest /dev/zero: expected a regular file, found a character device");
  fs::create_directories(cliScratch() / "manifests");
  std::string dir = (cliScratch() / "manifests").string();
  expectRefused("lint " + dir, "manifest " + dir + ": expected a regular file, found a directory");
  expectRefused("lint " + (cliScratch() / "absent.yaml").string(), "no such file");
}

TEST(CliHardInputs, LintRefusesAnOversizeManifest) {
  std::string big = writeScratchFile("big.yaml", "# " + std::string(17u << 20, 'x') + "\n");
  expectRefused("lint " + big, "larger than the 16 MiB limit");
  fs::remove(big);
}

TEST(CliHardInputs, LintSchemasDirectoryWithAFifo) {
  for (const char* name : {"crd.yaml", "k8s-api__v1_openapi.json"}) {
    SCOPED_TRACE(name);
    fs::path dir = cliScratch() / "schemas";
    fs::remove_all(dir);
    fs::create_directories(dir / "crds");
    std::ofstream(dir / "README.md") << "not read\n";
    std::string fifo = makeFifo(dir / "crds" / name);
    std::string manifest =
        writeScratchFile("cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n");
    expectRefused("lint --schemas " + dir.string() + " " + manifest,
                  "schema " + fifo + ": expected a regular file, found a FIFO");
    // A FIFO under a name lint never reads is no business of lint's.
    fs::remove(fifo);
    makeFifo(dir / "crds" / "notes.fifo");
    EXPECT_EQ(runRailkit("lint --schemas " + dir.string() + " " + manifest).status, 0);
  }
}

TEST(CliHardInputs, RenderProfileRefusesFifoAndDevices) {
  std::string fifo = makeFifo(cliScratch() / "profile.fifo");
  expectRefused("render --profile " + fifo, "profile " + fifo + ": expected a regular file, found a FIFO");
  for (const char* dev : {"/dev/zero", "/dev/urandom"})
    expectRefused(std::string("render --profile ") + dev,
                  std::string("profile ") + dev + ": expected a regular file, found a character device");
  std::string big =
      writeScratchFile("big-profile.yaml", std::string(kProfile) + "# " + std::string(2u << 20, 'x') + "\n");
  expectRefused("render --profile " + big, "larger than the 1 MiB limit");
  expectRefused("render node-prep --profile /dev/zero", "found a character device");
  // A good profile still renders.
  std::string good = writeScratchFile("good-profile.yaml", kProfile);
  ProcessResult r = runRailkit("render --profile " + good);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("kind: \"MPIJob\""), std::string::npos) << r.out.substr(0, 2000);
}

TEST(CliHardInputs, RenderRefusesBadCounts) {
  std::string good = writeScratchFile("good-profile.yaml", kProfile);
  expectRefused("render --profile " + good + " --nodes -1",
                "--nodes: expected a whole number from 1 to 100000, found '-1'");
  expectRefused("render --profile " + good + " --nodes 0",
                "--nodes: expected a whole number from 1 to 100000, found '0'");
  expectRefused("render --profile " + good + " --nodes 100001", "found '100001'");
  expectRefused("render --profile " + good + " --gpus-per-node -1",
                "--gpus-per-node: expected a whole number from 0 to 64, found '-1'");
  expectRefused("render --profile " + good + " --gpus-per-node 1000",
                "--gpus-per-node: expected a whole number from 0 to 64, found '1000'");
  // 0 GPUs is a node validate checks has none; a benchmark runs a rank per GPU.
  expectRefused("render --profile " + good + " --gpus-per-node 0",
                "gpusPerNode 0 goes with test.tool validate only");
  expectRefused("render --profile " + good + " --nodes 99999999999", "found '99999999999'");
  expectRefused("render --profile " + good + " --nodes many",
                "--nodes: expected a whole number from 1 to 100000, found 'many'");
  expectRefused("render node-prep --profile " + good + " --nodes 0", "--nodes: expected a whole number");
  // In range: the flag wins over the profile.
  ProcessResult r = runRailkit("render --profile " + good + " --nodes 3 --gpus-per-node 4");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("replicas: 3"), std::string::npos) << r.out.substr(0, 2000);
}

TEST(CliHardInputs, ProfileCountsAreBounded) {
  std::string base = "name: t\nnamespace: t\nimage: registry.example.com/nccl:1\n";
  struct Case {
    const char* yaml;
    const char* expected;
  };
  for (Case c : {Case{"nodes: -1\n", "nodes expects a whole number from 1 to 100000, found '-1'"},
                 Case{"nodes: 0\n", "found '0'"}, Case{"nodes: 1000000\n", "found '1000000'"},
                 Case{"gpusPerNode: -8\n", "gpusPerNode expects a whole number from 0 to 64, found '-8'"},
                 Case{"gpusPerNode: 100000\n", "found '100000'"}}) {
    std::string profile = writeScratchFile("counts.yaml", base + c.yaml);
    expectRefused("render --profile " + profile, c.expected);
  }
}

TEST(CliHardInputs, HwlocXmlRefusesFifoAndDevice) {
  std::string fifo = makeFifo(cliScratch() / "topo.fifo");
  expectRefused("inspect --hwloc-xml " + fifo,
                "--hwloc-xml " + fifo + ": expected a regular file, found a FIFO");
  expectRefused("inspect --hwloc-xml /dev/zero",
                "--hwloc-xml /dev/zero: expected a regular file, found a character device");
}

TEST(CliHardInputs, LogsRefusesFifoAndDevicesByName) {
  std::string fifo = makeFifo(cliScratch() / "log.fifo");
  expectRefused("logs " + fifo,
                fifo +
                    ": expected a regular file or - for standard input, found a FIFO (to read a "
                    "pipe, give - and redirect it");
  expectRefused("logs /dev/zero",
                "/dev/zero: expected a regular file or - for standard input, found a character device");
  expectRefused("logs " + cliScratch().string(), "found a directory");
  // The refusal is about the name, before anything is read: a good file
  // given first does not change it.
  std::string good = writeScratchFile("plain.log", "hello\n");
  expectRefused("logs " + good + " /dev/urandom", "found a character device");
}

TEST(CliHardInputs, LogsReadsAPipeThroughDash) {
  std::string text =
      "RDMA_Write BW Test\n#bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n"
      " 65536      5000             97.50              97.41                0.185795\n";
  std::string file = writeScratchFile("perftest.log", text);
  // A real pipe (not a redirect), as `cat file | railkit logs -`.
  std::string railkit = railkit::testing::railkitBinary();
  ProcessResult r = railkit::testing::runShell("cat " + file + " | " + railkit + " logs - --json");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("\"kind\": \"perftest\""), std::string::npos) << r.out.substr(0, 2000);
  // And a FIFO with a writer, through - and a redirect, as the hint says.
  std::string fifo = makeFifo(cliScratch() / "writer.fifo");
  r = railkit::testing::runShell("cat " + file + " > " + fifo + " &\n" + railkit + " logs - --json < " +
                                 fifo);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("\"kind\": \"perftest\""), std::string::npos) << r.out.substr(0, 2000);
}

}  // namespace
