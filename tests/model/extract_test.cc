// extractSnapshotArchive and TreeWriter directly: the limits (set small here
// so the tests stay fast), duplicate names, and that nothing lands outside.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "archive_builder.h"
#include "core/tree_writer.h"
#include "model/root_source.h"
#include "model/snapshot_archive.h"
#include "support/test_support.h"

namespace fs = std::filesystem;
using railkit::testing::ArchiveBuilder;

namespace railkit::model {
namespace {

class Extract : public ::testing::Test {
 protected:
  void SetUp() override {
    base_ = railkit::testing::freshTestDir("railkit-extract");
    fs::create_directories(dest_ = base_ / "dest");
  }
  void TearDown() override { fs::remove_all(base_); }

  Result<ExtractStats> extract(const ArchiveBuilder& builder, const ArchiveLimits& limits = {}) {
    EXPECT_TRUE(builder.write());
    int fd = ::open((base_ / "a.tar.gz").c_str(), O_RDONLY | O_CLOEXEC);
    auto magic = checkGzipMagic(fd, "test");
    if (!magic) {
      ::close(fd);
      return tl::unexpected(magic.error());
    }
    auto r = extractSnapshotArchive(fd, dest_.string(), "test", limits);
    ::close(fd);
    // Whatever happened, nothing but dest/ exists in base/ (besides the archive).
    for (auto& e : fs::directory_iterator(base_)) {
      auto name = e.path().filename();
      EXPECT_TRUE(name == "dest" || name == "a.tar.gz") << "written outside: " << e.path();
    }
    return r;
  }
  ArchiveBuilder builder() const { return ArchiveBuilder(base_ / "a.tar.gz"); }

  fs::path base_, dest_;
};

TEST_F(Extract, GoodArchive) {
  auto r = extract(builder()
                       .dir("sys/class/net")
                       .file("sys/devices/virtual/net/lo/mtu", "65536\n")
                       .symlink("sys/class/net/lo", "../../devices/virtual/net/lo")
                       .special("dev/infiniband/uverbs0", AE_IFCHR));
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(r->files, 2u);
  EXPECT_EQ(r->links, 1u);
  EXPECT_TRUE(fs::is_symlink(dest_ / "sys/class/net/lo"));
  EXPECT_EQ(fs::read_symlink(dest_ / "sys/class/net/lo"), "../../devices/virtual/net/lo");
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(dest_ / "dev/infiniband/uverbs0")));
  EXPECT_EQ(fs::file_size(dest_ / "dev/infiniband/uverbs0"), 0u);
}

TEST_F(Extract, TotalSizeLimit) {
  ArchiveLimits limits;
  limits.max_total_bytes = 1u << 20;
  auto r = extract(builder().zeros("a", 400u << 10).zeros("b", 400u << 10).zeros("c", 400u << 10), limits);
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message.find("more than 1 MiB of files"), std::string::npos) << r.error().message;
  EXPECT_EQ(r.error().code, ErrorCode::kInvalidInput);
}

TEST_F(Extract, EntryCountLimit) {
  ArchiveLimits limits;
  limits.max_entries = 10;
  auto b = builder();
  for (int i = 0; i < 11; ++i) b.file(std::string("f").append(std::to_string(i)), "x");
  auto r = extract(b, limits);
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message.find("more than 10 entries"), std::string::npos) << r.error().message;
  limits.max_entries = 11;
  fs::remove_all(dest_);
  fs::create_directories(dest_);
  EXPECT_TRUE(extract(b, limits).has_value());
}

TEST_F(Extract, EntrySizeLimitAndSymlinkTargetLength) {
  ArchiveLimits limits;
  limits.max_entry_bytes = 1000;
  auto r = extract(builder().file("a", std::string(1001, 'x')), limits);
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message.find("'a' refused: larger than 1000 bytes"), std::string::npos)
      << r.error().message;
  fs::remove_all(dest_);
  fs::create_directories(dest_);
  r = extract(builder().file("a", "x").symlink("l", std::string(5000, 't')));
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message.find("symlink target longer"), std::string::npos) << r.error().message;
}

TEST_F(Extract, DirectoryTwiceIsFineFileTwiceIsNot) {
  EXPECT_TRUE(extract(builder().dir("d").file("d/f", "x").dir("d")).has_value());
  fs::remove_all(dest_);
  fs::create_directories(dest_);
  auto r = extract(builder().file("f", "x").file("f", "y"));
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message.find("second entry"), std::string::npos) << r.error().message;
  fs::remove_all(dest_);
  fs::create_directories(dest_);
  r = extract(builder().symlink("d", "/").dir("d"));
  ASSERT_FALSE(r.has_value());
}

TEST(TreeWriter, NeverWritesThroughALinkOrAbove) {
  fs::path base = fs::temp_directory_path() / ("railkit-treewriter-" + std::to_string(::getpid()));
  fs::remove_all(base);
  fs::create_directories(base / "in");
  fs::create_directories(base / "out");
  auto tree = TreeWriter::open((base / "in").string(), TreeWriter::Existing::kReplace);
  ASSERT_TRUE(tree.has_value());
  ASSERT_TRUE(tree->makeSymlink("esc", (base / "out").string()).has_value());
  EXPECT_FALSE(tree->writeFile("esc/f", "x").has_value());
  EXPECT_FALSE(tree->makeDirectory("esc/d").has_value());
  EXPECT_FALSE(tree->makeSymlink("esc/l", "/").has_value());
  EXPECT_FALSE(tree->writeFile("../f", "x").has_value());
  EXPECT_FALSE(tree->writeFile("/f", "x").has_value());
  EXPECT_FALSE(tree->writeFile("", "x").has_value());
  // kReplace swaps a link for a file without touching the link's target.
  EXPECT_TRUE(tree->writeFile("esc", "now a file").has_value());
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(base / "in/esc")));
  EXPECT_TRUE(fs::is_empty(base / "out"));
  // Cached parents stay correct.
  EXPECT_TRUE(tree->writeFile("a/b/c", "1").has_value());
  EXPECT_TRUE(tree->writeFile("a/b/d", "2").has_value());
  EXPECT_TRUE(tree->writeFile("./a//b/e/", "3").has_value());
  EXPECT_TRUE(fs::is_regular_file(base / "in/a/b/e"));
  fs::remove_all(base);
}

// RootSource refuses what is not a snapshot before extracting anything.
TEST(RootSourceOpen, KindsOfInput) {
  fs::path base = fs::temp_directory_path() / ("railkit-rootsource-" + std::to_string(::getpid()));
  fs::remove_all(base);
  fs::create_directories(base);
  auto missing = RootSource::open(base / "absent");
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().code, ErrorCode::kNotFound);
  std::ofstream(base / "nul.tgz", std::ios::binary) << std::string(4096, '\0');
  auto nul = RootSource::open(base / "nul.tgz");
  ASSERT_FALSE(nul.has_value());
  EXPECT_NE(nul.error().message.find("a file of NUL bytes"), std::string::npos) << nul.error().message;
  auto dir = RootSource::open(base);
  ASSERT_TRUE(dir.has_value());
  EXPECT_FALSE(dir->extracted());
  ASSERT_TRUE(ArchiveBuilder(base / "ok.bin").file("proc/meminfo", "MemTotal: 1 kB\n").write());
  fs::path extracted;
  {
    auto ok = RootSource::open(base / "ok.bin");  // any name: the content decides
    ASSERT_TRUE(ok.has_value()) << ok.error().message;
    EXPECT_TRUE(ok->extracted());
    extracted = ok->directory();
    EXPECT_EQ(::access(extracted.c_str(), F_OK), 0);
    EXPECT_EQ(ok->fileRoot().readLine("/proc/meminfo").value_or(""), "MemTotal: 1 kB");
  }
  EXPECT_NE(::access(extracted.c_str(), F_OK), 0) << "extraction directory left behind";
  fs::remove_all(base);
}

}  // namespace
}  // namespace railkit::model
