// railkit install-self DIR: what the render's initContainer runs in railkit's
// shell-less image (docs/render.md, "railkit from its own image"). The copy
// is the running executable byte for byte, mode 0755, put in place by a
// rename (an earlier file's inode is never written), and every failure is
// exit 2 with one line.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/cli_run.h"

namespace fs = std::filesystem;
using railkit::testing::cliScratch;
using railkit::testing::ProcessResult;
using railkit::testing::railkitBinary;
using railkit::testing::runRailkit;
using railkit::testing::runShell;

namespace {

std::string contentOf(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

fs::path freshDir(const std::string& name) {
  fs::path dir = cliScratch() / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void expectRefused(const ProcessResult& r, const std::string& expected) {
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_TRUE(r.oneErrorLine()) << r.err;
  EXPECT_NE(r.err.find(expected), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST(CliInstallSelf, CopiesTheRunningExecutable) {
  fs::path dir = freshDir("install");
  ProcessResult r = runRailkit("install-self " + dir.string());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "railkit: installed " + (dir / "railkit").string() + "\n");
  EXPECT_TRUE(r.err.empty()) << r.err;
  EXPECT_EQ(contentOf(dir / "railkit"), contentOf(railkitBinary()));
  struct stat st {};
  ASSERT_EQ(::stat((dir / "railkit").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0755u);
  // Nothing else is left in DIR (no temporary file).
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator{}), 1);
  // The copy runs.
  ProcessResult copy = runShell("exec " + (dir / "railkit").string() + " --version");
  EXPECT_EQ(copy.status, 0) << copy.err;
  EXPECT_EQ(copy.out.rfind("railkit ", 0), 0u) << copy.out;
}

TEST(CliInstallSelf, CopiesTheFileNotTheNameItWasCalledBy) {
  fs::path dir = freshDir("by-link");
  fs::path link = cliScratch() / "rk-link";
  fs::remove(link);
  fs::create_symlink(railkitBinary(), link);
  ProcessResult r = runShell("exec " + link.string() + " install-self " + dir.string() + "/");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "railkit: installed " + (dir / "railkit").string() + "\n");  // one slash
  EXPECT_FALSE(fs::is_symlink(dir / "railkit"));
  EXPECT_EQ(contentOf(dir / "railkit"), contentOf(railkitBinary()));
  fs::remove(link);
}

// An earlier railkit (a restarted initContainer, or a reader that has it
// open) keeps its bytes: the new file is renamed over the name.
TEST(CliInstallSelf, ReplacesByRename) {
  fs::path dir = freshDir("replace");
  std::ofstream(dir / "railkit") << "old binary\n";
  fs::create_hard_link(dir / "railkit", dir / "held");
  ProcessResult r = runRailkit("install-self " + dir.string());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(contentOf(dir / "held"), "old binary\n");
  EXPECT_EQ(contentOf(dir / "railkit"), contentOf(railkitBinary()));
  EXPECT_EQ(fs::hard_link_count(dir / "railkit"), 1u);
}

TEST(CliInstallSelf, RefusesWhatIsNoWritableDirectory) {
  fs::path missing = cliScratch() / "no-such-dir";
  fs::remove_all(missing);
  expectRefused(
      runRailkit("install-self " + missing.string()),
      "install-self " + missing.string() + ": No such file or directory (expected an existing directory)");
  EXPECT_FALSE(fs::exists(missing));
  fs::path file = cliScratch() / "a-file";
  std::ofstream(file) << "x\n";
  expectRefused(runRailkit("install-self " + file.string()),
                "install-self " + file.string() + ": not a directory");
  ProcessResult none = runRailkit("install-self");
  EXPECT_EQ(none.status, 2) << none.err;
  EXPECT_TRUE(none.oneErrorLine()) << none.err;
}

// A read-only directory: a read-only bind mount as root (root writes into a
// mode 0555 directory), mode 0555 otherwise.
TEST(CliInstallSelf, RefusesAReadOnlyDirectory) {
  fs::path dir = freshDir("read-only");
  ProcessResult r;
  if (::geteuid() == 0) {
    ProcessResult probe = runShell("exec unshare -m true");
    if (probe.status != 0) GTEST_SKIP() << "root without unshare -m: no read-only mount to try";
    r = runShell("exec unshare -m sh -c 'mount --bind " + dir.string() + " " + dir.string() +
                 " && mount -o remount,bind,ro " + dir.string() + " && exec " + railkitBinary() +
                 " install-self " + dir.string() + "'");
    EXPECT_NE(r.err.find("Read-only file system"), std::string::npos) << r.err;
  } else {
    fs::permissions(dir, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                             fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec);
    r = runRailkit("install-self " + dir.string());
    EXPECT_NE(r.err.find("Permission denied"), std::string::npos) << r.err;
  }
  expectRefused(r,
                "install-self " + (dir / "railkit").string() + ": cannot create a file in " + dir.string());
  EXPECT_TRUE(fs::is_empty(dir));
  fs::permissions(dir, fs::perms::owner_all);
}

}  // namespace
