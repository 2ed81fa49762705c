// Ctrl-C / SIGTERM while a .tar.gz --root is extracted or read, or while
// `snapshot` writes: the process ends as killed by that signal (shell status
// 130 / 143) and leaves no railkit-root-* / railkit-snap-* directory and no
// temporary or partial output behind.
//
// The signal is sent as soon as the temporary directory appears; from then
// until it is removed the command holds its cleanup scope, so the test does
// not depend on how fast this machine extracts.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "archive_builder.h"
#include "support/process.h"
#include "support/test_support.h"

namespace fs = std::filesystem;
using railkit::testing::ArchiveBuilder;
using railkit::testing::namesIn;

namespace {

class Interrupt : public ::testing::Test {
 protected:
  void SetUp() override {
    base_ = railkit::testing::freshTestDir("railkit-interrupt");
    fs::create_directories(tmp_ = base_ / "tmp");
    fs::create_directories(out_ = base_ / "out");
  }
  void TearDown() override { fs::remove_all(base_); }

  // Many small entries: seconds of work, well inside the limits.
  fs::path bigArchive() {
    fs::path path = base_ / "big.tar.gz";
    ArchiveBuilder b(path);
    b.file("proc/meminfo", "MemTotal: 1 kB\n");
    for (int i = 0; i < 60000; ++i) {
      std::string name = "sys/bulk/d";
      name.append(std::to_string(i % 100)).append("/f").append(std::to_string(i));
      b.file(name, "1\n");
    }
    EXPECT_TRUE(b.write());
    return path;
  }

  // Starts railkit with `args` and TMPDIR in tmp_, waits (up to 120 s)
  // until `dir` holds a name starting with `prefix`, then sends `sig`;
  // returns how the run ended.
  railkit::testing::ProcessResult signalWhenPresent(const std::vector<std::string>& args, const fs::path& dir,
                                                    const std::string& prefix, int sig) {
    railkit::testing::ProcessSpec spec;
    spec.argv = {railkit::testing::railkitBinary()};
    spec.argv.insert(spec.argv.end(), args.begin(), args.end());
    spec.tmpdir = tmp_.string();
    spec.timeout = std::chrono::seconds(180);
    railkit::testing::Process railkit(std::move(spec));
    EXPECT_TRUE(railkit.start());
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    bool seen = false;
    while (!seen && std::chrono::steady_clock::now() < deadline) {
      for (const auto& n : namesIn(dir)) seen = seen || n.rfind(prefix, 0) == 0;
      if (!seen && !railkit.running()) {
        ADD_FAILURE() << "railkit ended before " << prefix << "* appeared in " << dir;
        return railkit.wait();
      }
      if (!seen) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    EXPECT_TRUE(seen) << prefix << "* never appeared in " << dir;
    ::kill(railkit.pid(), seen ? sig : SIGKILL);
    return railkit.wait();
  }

  void expectKilledBy(const railkit::testing::ProcessResult& r, int sig) {
    EXPECT_EQ(r.signal, sig) << "want killed by signal " << sig << "; exit code " << r.exit_code
                             << ", stderr:\n"
                             << r.err;
  }

  fs::path base_, tmp_, out_;
};

TEST_F(Interrupt, SigintDuringInspectExtraction) {
  fs::path archive = bigArchive();
  expectKilledBy(signalWhenPresent({"inspect", "--root", archive.string()}, tmp_, "railkit-root-", SIGINT),
                 SIGINT);
  EXPECT_EQ(namesIn(tmp_), std::vector<std::string>{}) << "temporary directory left behind";
}

TEST_F(Interrupt, SigtermDuringDoctorExtraction) {
  fs::path archive = bigArchive();
  expectKilledBy(signalWhenPresent({"doctor", "--root", archive.string()}, tmp_, "railkit-root-", SIGTERM),
                 SIGTERM);
  EXPECT_EQ(namesIn(tmp_), std::vector<std::string>{}) << "temporary directory left behind";
}

// A tree whose /dev/infiniband lists 60000 entries: snapshot copies each.
fs::path bigTree(const fs::path& base) {
  fs::path tree = base / "tree";
  fs::create_directories(tree / "dev/infiniband");
  fs::create_directories(tree / "proc");
  std::ofstream(tree / "proc/meminfo") << "MemTotal: 1 kB\n";
  for (int i = 0; i < 60000; ++i)
    std::ofstream(tree / "dev/infiniband" / std::string("uverbs").append(std::to_string(i)));
  return tree;
}

TEST_F(Interrupt, SigintDuringSnapshotToTarGz) {
  fs::path tree = bigTree(base_);
  fs::path target = out_ / "node.tar.gz";
  expectKilledBy(signalWhenPresent({"snapshot", "--output", target.string(), "--root", tree.string()}, tmp_,
                                   "railkit-snap-", SIGINT),
                 SIGINT);
  EXPECT_EQ(namesIn(tmp_), std::vector<std::string>{}) << "staging directory left behind";
  EXPECT_EQ(namesIn(out_), std::vector<std::string>{}) << "temporary or partial archive left behind";
}

TEST_F(Interrupt, SigtermDuringSnapshotToDirectory) {
  fs::path tree = bigTree(base_);
  fs::path target = out_ / "node";
  expectKilledBy(signalWhenPresent({"snapshot", "--output", target.string(), "--root", tree.string()}, out_,
                                   ".node.railkit-snap-", SIGTERM),
                 SIGTERM);
  EXPECT_EQ(namesIn(out_), std::vector<std::string>{}) << "temporary or partial snapshot left behind";
  EXPECT_EQ(namesIn(tmp_), std::vector<std::string>{});
}

}  // namespace
