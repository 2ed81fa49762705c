// --root given a hostile or broken snapshot, through the binary: every case
// is exit 2 with one line on stderr, nothing printed on stdout, nothing
// written outside the extraction directory (a canary outside stays as it
// was) and no railkit-root-* left in the private TMPDIR.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "archive_builder.h"
#include "support/node_builder.h"
#include "support/process.h"
#include "support/test_support.h"

namespace fs = std::filesystem;
using railkit::testing::ArchiveBuilder;
using railkit::testing::namesIn;
using railkit::testing::ProcessResult;
using railkit::testing::runRailkitArgv;

namespace {

class HostileRoot : public ::testing::Test {
 protected:
  void SetUp() override {
    base_ = railkit::testing::freshTestDir("railkit-hostile");
    fs::create_directories(tmp_ = base_ / "tmp");
    fs::create_directories(canary_ = base_ / "canary");
    std::ofstream(canary_ / "victim") << "original\n";
  }
  void TearDown() override { fs::remove_all(base_); }

  fs::path archive(const std::string& name = "snap.tar.gz") const { return base_ / name; }

  std::string victim() const {
    std::ifstream in(canary_ / "victim");
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

  // inspect and doctor both refuse `root` with one line containing `needle`.
  void expectRefused(const fs::path& root, const std::string& needle) {
    for (const char* command : {"inspect", "doctor"}) {
      ProcessResult r = runRailkitArgv({command, "--root", root.string()}, tmp_.string(), 60);
      EXPECT_FALSE(r.timed_out) << command << ": hung on " << root;
      EXPECT_EQ(r.exit_code, 2) << command << " " << root << "\nstdout: " << r.out << "\nstderr: " << r.err;
      EXPECT_EQ(r.errLines(), 1) << r.err;
      EXPECT_TRUE(r.out.empty()) << r.out;
      EXPECT_NE(r.err.find(needle), std::string::npos) << "expected '" << needle << "' in: " << r.err;
      EXPECT_EQ(namesIn(tmp_), std::vector<std::string>{}) << "temporary directory left behind";
    }
    EXPECT_EQ(namesIn(canary_), std::vector<std::string>{"victim"}) << "something was written outside";
    EXPECT_EQ(victim(), "original\n");
    struct stat st {};
    ASSERT_EQ(::lstat((canary_ / "victim").c_str(), &st), 0);
    EXPECT_TRUE(S_ISREG(st.st_mode));
    EXPECT_EQ(st.st_nlink, 1u) << "a hard link to the canary was made";
  }

  fs::path base_, tmp_, canary_;
};

TEST_F(HostileRoot, SymlinkToOutsideThenEntryThroughIt) {
  ASSERT_TRUE(ArchiveBuilder(archive())
                  .file("proc/self/status", "Name:\trailkit\n")
                  .symlink("esc", canary_.string())
                  .file("esc/planted", "pwned\n")
                  .write());
  expectRefused(archive(), "esc/planted");
}

TEST_F(HostileRoot, SymlinkThroughWhichAFileIsOverwritten) {
  ASSERT_TRUE(ArchiveBuilder(archive())
                  .dir("sys")
                  .symlink("sys/esc", canary_.string())
                  .file("sys/esc/victim", "pwned\n")
                  .write());
  expectRefused(archive(), "sys/esc/victim");
}

TEST_F(HostileRoot, SymlinkThroughWhichASymlinkReplacesAFile) {
  ASSERT_TRUE(ArchiveBuilder(archive())
                  .symlink("esc", canary_.string())
                  .symlink("esc/victim", "/etc/passwd")
                  .write());
  expectRefused(archive(), "esc/victim");
}

TEST_F(HostileRoot, SymlinkThenFileOfTheSameName) {
  ASSERT_TRUE(ArchiveBuilder(archive())
                  .file("proc/meminfo", "MemTotal: 1 kB\n")
                  .symlink("proc/victim", (canary_ / "victim").string())
                  .file("proc/victim", "pwned\n")
                  .write());
  expectRefused(archive(), "proc/victim");
}

TEST_F(HostileRoot, FileThenSymlinkOfTheSameNameThenFileThroughIt) {
  ASSERT_TRUE(ArchiveBuilder(archive())
                  .file("d", "x")
                  .symlink("d", canary_.string())
                  .file("d/planted", "pwned\n")
                  .write());
  expectRefused(archive(), "'d'");
}

TEST_F(HostileRoot, HardLinkToAFileOutside) {
  ASSERT_TRUE(ArchiveBuilder(archive()).file("a", "x").hardlink("passwd", "/etc/passwd").write());
  expectRefused(archive(), "hard link");
  ASSERT_TRUE(ArchiveBuilder(archive("b.tar.gz"))
                  .file("a", "x")
                  .hardlink("v", (canary_ / "victim").string())
                  .write());
  expectRefused(archive("b.tar.gz"), "hard link");
}

TEST_F(HostileRoot, AbsoluteAndDotDotNames) {
  ASSERT_TRUE(
      ArchiveBuilder(archive()).file("a", "x").file((canary_ / "planted").string(), "pwned\n").write());
  expectRefused(archive(), "absolute");
  ASSERT_TRUE(
      ArchiveBuilder(archive("b.tar.gz")).file("a", "x").file("sys/../../planted", "pwned\n").write());
  expectRefused(archive("b.tar.gz"), "..");
  ASSERT_TRUE(ArchiveBuilder(archive("c.tar.gz")).file("a", "x").symlink("../sibling", "/").write());
  expectRefused(archive("c.tar.gz"), "..");
}

// 17 MiB of zeros is a ~17 KiB archive; the header's size is refused before
// anything is written.
TEST_F(HostileRoot, BombEntryOverTheLimit) {
  ASSERT_TRUE(ArchiveBuilder(archive()).file("a", "x").zeros("proc/meminfo", 17u << 20).write());
  EXPECT_LT(fs::file_size(archive()), 1u << 20);
  expectRefused(archive(), "larger than 16 MiB");
}

TEST_F(HostileRoot, NamesTooLongOrTooDeep) {
  ASSERT_TRUE(ArchiveBuilder(archive()).file("a", "x").file(std::string(5000, 'n'), "x").write());
  expectRefused(archive(), "longer than 4096 bytes");
  std::string deep;
  for (int i = 0; i < 130; ++i) deep += "d/";
  ASSERT_TRUE(ArchiveBuilder(archive("b.tar.gz")).file("a", "x").file(deep + "f", "x").write());
  expectRefused(archive("b.tar.gz"), "deep");
}

TEST_F(HostileRoot, NulBytesWhateverTheName) {
  for (const char* name : {"zeros.tar.gz", "zeros.bin"}) {
    std::ofstream(base_ / name, std::ios::binary) << std::string(64 << 10, '\0');
    expectRefused(base_ / name, "NUL");
  }
}

TEST_F(HostileRoot, EmptyFileTextFileAndPlainTar) {
  std::ofstream(base_ / "empty.tar.gz");
  expectRefused(base_ / "empty.tar.gz", "empty file");
  std::ofstream(base_ / "text.tar.gz") << "this is not an archive\n";
  expectRefused(base_ / "text.tar.gz", "not gzip");
  ASSERT_TRUE(ArchiveBuilder(base_ / "plain.tar").file("proc/meminfo", "MemTotal: 1 kB\n").write(false));
  expectRefused(base_ / "plain.tar", "uncompressed tar");
}

TEST_F(HostileRoot, GzipOfSomethingElse) {
  fs::path text = base_ / "notes.txt";
  std::ofstream(text) << std::string(4096, 'x') << "\n";
  ASSERT_EQ(railkit::testing::runShell("gzip -c " + text.string() + " > " + archive().string()).status, 0);
  expectRefused(archive(), "not a readable .tar.gz");
}

TEST_F(HostileRoot, ArchiveWithNoEntries) {
  ASSERT_TRUE(ArchiveBuilder(archive()).write());
  expectRefused(archive(), "holds no files");
  ASSERT_TRUE(ArchiveBuilder(archive("dirs.tar.gz")).dir("sys").dir("proc").write());
  expectRefused(archive("dirs.tar.gz"), "holds no files");
}

TEST_F(HostileRoot, TruncatedArchive) {
  // Incompressible content, so that half the archive ends inside the data.
  std::string noise;
  unsigned x = 12345;
  for (int i = 0; i < 200000; ++i) noise += static_cast<char>((x = x * 1103515245 + 12345) >> 16);
  ASSERT_TRUE(ArchiveBuilder(archive("good.tar.gz"))
                  .file("proc/meminfo", "MemTotal: 1 kB\n")
                  .file("sys/blob", noise)
                  .write());
  auto size = fs::file_size(archive("good.tar.gz"));
  fs::copy_file(archive("good.tar.gz"), archive());
  fs::resize_file(archive(), size / 2);
  expectRefused(archive(), "truncated");
}

TEST_F(HostileRoot, FifoOrDeviceGivenAsRoot) {
  ASSERT_EQ(::mkfifo((base_ / "fifo.tar.gz").c_str(), 0600), 0);
  expectRefused(base_ / "fifo.tar.gz", "FIFO");
  expectRefused("/dev/zero", "character device");
}

// Root reads any directory, so the unreadable directory is tried as nobody.
TEST_F(HostileRoot, UnreadableDirectory) {
  fs::path dir = base_ / "locked";
  railkit::testing::buildHealthyDgxH100(dir);
  if (::geteuid() != 0) {
    fs::permissions(dir, fs::perms::none);
    ProcessResult r = runRailkitArgv({"inspect", "--root", dir.string()}, tmp_.string(), 60);
    fs::permissions(dir, fs::perms::owner_all);
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_NE(r.err.find("Permission denied"), std::string::npos) << r.err;
    return;
  }
  if (railkit::testing::runShell("command -v setpriv").status != 0)
    GTEST_SKIP() << "setpriv absent: cannot drop root";
  // A copy of the binary nobody can reach, in a directory nobody can search.
  fs::path bin_dir = base_ / "bin";
  fs::create_directories(bin_dir);
  fs::copy_file(railkit::testing::railkitBinary(), bin_dir / "railkit");
  fs::permissions(base_, fs::perms::owner_all | fs::perms::others_exec | fs::perms::group_exec);
  fs::permissions(bin_dir, fs::perms::owner_all | fs::perms::others_exec | fs::perms::group_exec);
  fs::permissions(dir, fs::perms::owner_all);  // 0700 root: nobody may not list it
  auto nobody = railkit::testing::runProcess(
      railkit::testing::ProcessSpec({"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                                     (bin_dir / "railkit").string(), "inspect", "--root", dir.string()})
          .withTimeout(std::chrono::seconds(60)));
  if (nobody.status == 127 || nobody.status == 126)
    GTEST_SKIP() << "cannot run the binary as nobody here: " << nobody.err;
  EXPECT_EQ(nobody.status, 2) << nobody.out << nobody.err;
  EXPECT_NE(nobody.err.find("Permission denied"), std::string::npos) << nobody.err;
}

// What a snapshot may hold: device nodes, FIFOs and sockets become empty
// files; links stay links and are resolved inside the tree.
TEST_F(HostileRoot, SpecialEntriesBecomeEmptyFilesAndLinksStayInside) {
  ASSERT_TRUE(ArchiveBuilder(archive())
                  .file("proc/self/status", "Name:\trailkit\n")
                  .special("dev/infiniband/uverbs0", AE_IFCHR)
                  .special("dev/infiniband/rdma_cm", AE_IFCHR)
                  .special("proc/meminfo", AE_IFIFO)
                  .symlink("etc", "/")  // a link to the root of the tree, not of the machine
                  .write());
  ProcessResult r = runRailkitArgv({"inspect", "--json", "--root", archive().string()}, tmp_.string(), 60);
  EXPECT_FALSE(r.timed_out);
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
  EXPECT_NE(r.out.find("uverbs0"), std::string::npos) << r.out.substr(0, 3000);
  EXPECT_EQ(namesIn(tmp_), std::vector<std::string>{});
}

// A FIFO inside a --root tree never hangs a reader: it is not a regular file.
TEST_F(HostileRoot, FifoInsideADirectoryRootDoesNotHang) {
  fs::path dir = base_ / "tree";
  railkit::testing::buildHealthyDgxH100(dir);
  for (const char* rel : {"proc/meminfo", "proc/self/status", "proc/self/limits"}) {
    fs::remove(dir / rel);
    ASSERT_EQ(::mkfifo((dir / rel).c_str(), 0600), 0) << rel;
  }
  // Also a FIFO in a listed directory, which snapshot copies as an entry.
  ASSERT_EQ(::mkfifo((dir / "dev/infiniband/fifo").c_str(), 0600), 0);
  for (const char* command : {"inspect", "doctor"}) {
    ProcessResult r = runRailkitArgv({command, "--root", dir.string()}, tmp_.string(), 60);
    EXPECT_FALSE(r.timed_out) << command << " hung on a FIFO";
    EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << command << ": " << r.err;
  }
  ProcessResult r =
      runRailkitArgv({"snapshot", "--output", archive().string(), "--root", dir.string()}, tmp_.string(), 60);
  EXPECT_FALSE(r.timed_out) << "snapshot hung on a FIFO";
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // And the snapshot of it reads back.
  r = runRailkitArgv({"inspect", "--root", archive().string()}, tmp_.string(), 60);
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

// GNU tar's archives of a tree ("./" prefixes, directory entries first) are
// snapshots too.
TEST_F(HostileRoot, TarOfATreeReadsBack) {
  fs::path dir = base_ / "tree";
  railkit::testing::buildHealthyDgxH100(dir);
  ASSERT_EQ(
      railkit::testing::runShell("tar -czf " + archive().string() + " -C " + dir.string() + " .").status, 0);
  ProcessResult a = runRailkitArgv({"inspect", "--json", "--root", dir.string()}, tmp_.string(), 60);
  ProcessResult b = runRailkitArgv({"inspect", "--json", "--root", archive().string()}, tmp_.string(), 60);
  ASSERT_EQ(a.exit_code, 0) << a.err;
  ASSERT_EQ(b.exit_code, 0) << b.err;
  auto ja = nlohmann::json::parse(a.out, nullptr, false);
  auto jb = nlohmann::json::parse(b.out, nullptr, false);
  ASSERT_FALSE(ja.is_discarded() || jb.is_discarded());
  ja.erase("root");
  jb.erase("root");
  EXPECT_EQ(ja, jb);
  EXPECT_FALSE(jb["rdma_devices"].empty());
  EXPECT_EQ(namesIn(tmp_), std::vector<std::string>{});
}

}  // namespace
