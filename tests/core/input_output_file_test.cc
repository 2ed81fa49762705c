// readInputFile (type check, cap, FIFOs and devices) and AtomicFile (never a
// half-written result under the final name).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>

#include "core/atomic_file.h"
#include "core/input_file.h"
#include "support/test_support.h"

namespace railkit {
namespace {

namespace fs = std::filesystem;

class InputOutputFileTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = railkit::testing::freshTestDir("railkit-io"); }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  void write(const std::string& name, const std::string& text) { std::ofstream(dir_ / name) << text; }
  std::vector<std::string> entries() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir_)) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }
  fs::path dir_;
};

TEST_F(InputOutputFileTest, ReadsARegularFile) {
  write("a.yaml", "kind: Pod\n");
  auto text = readInputFile(path("a.yaml"), {"manifest", 1024, false});
  ASSERT_TRUE(text) << text.error().message;
  EXPECT_EQ(*text, "kind: Pod\n");
}

TEST_F(InputOutputFileTest, MissingFileIsNotFound) {
  auto text = readInputFile(path("nope"), {"manifest", 1024, false});
  ASSERT_FALSE(text);
  EXPECT_EQ(text.error().code, ErrorCode::kNotFound);
  EXPECT_NE(text.error().message.find("nope"), std::string::npos);
}

TEST_F(InputOutputFileTest, DirectoryIsRefusedNamingWhatWasFound) {
  auto text = readInputFile(dir_.string(), {"manifest", 1024, false});
  ASSERT_FALSE(text);
  EXPECT_EQ(text.error().code, ErrorCode::kInvalidInput);
  EXPECT_NE(text.error().message.find("expected a regular file, found a directory"), std::string::npos)
      << text.error().message;
}

TEST_F(InputOutputFileTest, FifoWithoutWriterIsRefusedAtOnce) {
  ASSERT_EQ(::mkfifo(path("fifo").c_str(), 0600), 0);
  auto start = std::chrono::steady_clock::now();
  auto text = readInputFile(path("fifo"), {"profile", 1024, false});
  ASSERT_FALSE(text);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_NE(text.error().message.find("found a FIFO"), std::string::npos) << text.error().message;
}

TEST_F(InputOutputFileTest, CharacterDevicesAreRefused) {
  for (const char* dev : {"/dev/zero", "/dev/urandom", "/dev/null"}) {
    if (!fs::exists(dev)) continue;
    auto text = readInputFile(dev, {"manifest", 1024, false});
    ASSERT_FALSE(text) << dev;
    EXPECT_NE(text.error().message.find("found a character device"), std::string::npos)
        << text.error().message;
  }
}

TEST_F(InputOutputFileTest, OverSizeFileIsRefusedNotTruncated) {
  write("big", std::string(2000, 'x'));
  auto text = readInputFile(path("big"), {"hostfile", 1024, false});
  ASSERT_FALSE(text);
  EXPECT_EQ(text.error().code, ErrorCode::kInvalidInput);
  EXPECT_NE(text.error().message.find("1 KiB"), std::string::npos) << text.error().message;
  EXPECT_TRUE(readInputFile(path("big"), {"hostfile", 2000, false}));
}

TEST_F(InputOutputFileTest, AtomicWriteReplacesWholeAndLeavesNoTemporary) {
  write("out.json", "old\n");
  ASSERT_TRUE(writeFileAtomic(path("out.json"), "new\n", "--json-out"));
  std::ifstream in(path("out.json"));
  std::string text((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(text, "new\n");
  EXPECT_EQ(entries(), std::vector<std::string>{"out.json"});
}

TEST_F(InputOutputFileTest, UncommittedFileLeavesTheOldResult) {
  write("out.json", "old\n");
  {
    auto file = AtomicFile::create(path("out.json"), "--json-out");
    ASSERT_TRUE(file);
    ASSERT_TRUE(file->write("half of a new"));
    // Destroyed without commit: as if the run died before finishing.
  }
  std::ifstream in(path("out.json"));
  std::string text((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(text, "old\n");
  EXPECT_EQ(entries(), std::vector<std::string>{"out.json"});
}

TEST_F(InputOutputFileTest, RefuseKeepsAnExistingFile) {
  write("snap.tar.gz", "precious");
  auto file = AtomicFile::create(path("snap.tar.gz"), "snapshot --output", ExistingFile::kRefuse);
  ASSERT_FALSE(file);
  EXPECT_NE(file.error().message.find("--force"), std::string::npos);
  // The name appearing between create and commit is refused too.
  auto late = AtomicFile::create(path("late.tar.gz"), "snapshot --output", ExistingFile::kRefuse);
  ASSERT_TRUE(late);
  ASSERT_TRUE(late->write("new"));
  write("late.tar.gz", "someone else's");
  auto st = late->commit();
  ASSERT_FALSE(st);
  std::ifstream in(path("late.tar.gz"));
  std::string text((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(text, "someone else's");
  EXPECT_EQ(entries(), (std::vector<std::string>{"late.tar.gz", "snap.tar.gz"}));
}

TEST_F(InputOutputFileTest, DirectoryAsOutputIsAUsageError) {
  auto st = writeFileAtomic(dir_.string(), "x", "--json-out");
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code, ErrorCode::kUsage);
}

}  // namespace
}  // namespace railkit
