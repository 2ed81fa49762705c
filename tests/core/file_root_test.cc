#include "core/file_root.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>

#include "support/test_support.h"

namespace railkit {
namespace {

namespace fs = std::filesystem;

class FileRootTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = railkit::testing::freshTestDir("railkit-fileroot");
    fs::create_directories(dir_ / "sys/devices/pci0000:00/0000:00:01.0/0000:3b:00.0/infiniband/mlx5_0");
    fs::create_directories(dir_ / "sys/class/infiniband");
    write("sys/devices/pci0000:00/0000:00:01.0/0000:3b:00.0/infiniband/mlx5_0/fw_ver", "28.39.1002\n");
    fs::create_symlink("../../devices/pci0000:00/0000:00:01.0/0000:3b:00.0/infiniband/mlx5_0",
                       dir_ / "sys/class/infiniband/mlx5_0");
  }
  void TearDown() override { fs::remove_all(dir_); }
  void write(const std::string& rel, const std::string& text) { std::ofstream(dir_ / rel) << text; }
  fs::path dir_;
};

TEST_F(FileRootTest, FollowsRelativeSymlinksInsideRoot) {
  FileRoot root(dir_);
  auto text = root.readLine("/sys/class/infiniband/mlx5_0/fw_ver");
  ASSERT_TRUE(text.has_value());
  EXPECT_EQ(*text, "28.39.1002");
  auto resolved = root.resolve("/sys/class/infiniband/mlx5_0");
  ASSERT_TRUE(resolved.has_value());
  EXPECT_EQ(*resolved, "/sys/devices/pci0000:00/0000:00:01.0/0000:3b:00.0/infiniband/mlx5_0");
}

TEST_F(FileRootTest, AbsoluteSymlinkStaysInsideRoot) {
  fs::create_symlink("/sys/devices", dir_ / "sys/class/abs");
  FileRoot root(dir_);
  auto resolved = root.resolve("/sys/class/abs/pci0000:00");
  ASSERT_TRUE(resolved.has_value());
  EXPECT_EQ(*resolved, "/sys/devices/pci0000:00");
  EXPECT_TRUE(root.isDirectory("/sys/class/abs/pci0000:00"));
}

TEST_F(FileRootTest, DotDotNeverClimbsAboveRoot) {
  fs::create_symlink("../../../../../../etc", dir_ / "sys/class/escape");
  FileRoot root(dir_);
  auto resolved = root.resolve("/sys/class/escape/passwd");
  ASSERT_TRUE(resolved.has_value());
  EXPECT_EQ(*resolved, "/etc/passwd");
  EXPECT_FALSE(root.readText("/sys/class/escape/passwd").has_value());
}

TEST_F(FileRootTest, SymlinkLoopIsAnError) {
  fs::create_symlink("loop2", dir_ / "sys/loop1");
  fs::create_symlink("loop1", dir_ / "sys/loop2");
  FileRoot root(dir_);
  auto text = root.readText("/sys/loop1");
  ASSERT_FALSE(text.has_value());
  EXPECT_NE(text.error().message.find("too many symlinks"), std::string::npos);
}

TEST_F(FileRootTest, MissingFileIsNotFound) {
  FileRoot root(dir_);
  auto text = root.readText("/proc/self/limits");
  ASSERT_FALSE(text.has_value());
  EXPECT_EQ(text.error().code, ErrorCode::kNotFound);
  auto list = root.listDir("/sys/class/net");
  ASSERT_FALSE(list.has_value());
  EXPECT_EQ(list.error().code, ErrorCode::kNotFound);
}

TEST_F(FileRootTest, ListDirIsSorted) {
  fs::create_directories(dir_ / "dev/infiniband");
  write("dev/infiniband/uverbs1", "");
  write("dev/infiniband/rdma_cm", "");
  write("dev/infiniband/uverbs0", "");
  FileRoot root(dir_);
  auto list = root.listDir("/dev/infiniband");
  ASSERT_TRUE(list.has_value());
  EXPECT_EQ(*list, (std::vector<std::string>{"rdma_cm", "uverbs0", "uverbs1"}));
}

TEST_F(FileRootTest, ReadLinkGivesRawTarget) {
  FileRoot root(dir_);
  auto target = root.readLink("/sys/class/infiniband/mlx5_0");
  ASSERT_TRUE(target.has_value());
  EXPECT_EQ(*target, "../../devices/pci0000:00/0000:00:01.0/0000:3b:00.0/infiniband/mlx5_0");
}

TEST_F(FileRootTest, OpenRejectsMissingDirectory) {
  auto root = FileRoot::open(dir_ / "does-not-exist");
  ASSERT_FALSE(root.has_value());
  EXPECT_EQ(root.error().code, ErrorCode::kUsage);
}

// A FIFO where a sysfs file should be must not block the reader: it is not a
// regular file, and opening it does not wait for a writer. If it ever does
// block, the test unblocks it by opening the writer end, and fails.
TEST_F(FileRootTest, FifoIsRefusedWithoutBlocking) {
  fs::path fifo = dir_ / "sys/devices/pci0000:00/0000:00:01.0/0000:3b:00.0/infiniband/mlx5_0/node_desc";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  FileRoot root(dir_);
  auto pending =
      std::async(std::launch::async, [&] { return root.readText("/sys/class/infiniband/mlx5_0/node_desc"); });
  if (pending.wait_for(std::chrono::seconds(20)) != std::future_status::ready) {
    ADD_FAILURE() << "readText blocked on a FIFO";
    int w = ::open(fifo.c_str(), O_WRONLY);
    if (w >= 0) ::close(w);
  }
  auto text = pending.get();
  ASSERT_FALSE(text.has_value());
  EXPECT_EQ(text.error().code, ErrorCode::kInvalidInput);
  EXPECT_NE(text.error().message.find("not a regular file (a FIFO)"), std::string::npos)
      << text.error().message;
  // Existence is still answered (device nodes are only checked for that).
  EXPECT_TRUE(root.exists("/sys/class/infiniband/mlx5_0/node_desc"));
  EXPECT_FALSE(root.readLine("/sys/class/infiniband/mlx5_0/node_desc").has_value());
}

// A character device (here /dev/zero's numbers) would stream forever.
TEST_F(FileRootTest, CharacterDeviceIsRefused) {
  fs::create_directories(dir_ / "dev/infiniband");
  if (::mknod((dir_ / "dev/infiniband/uverbs0").c_str(), S_IFCHR | 0600, makedev(1, 5)) != 0)
    GTEST_SKIP() << "cannot mknod here (not root?)";
  FileRoot root(dir_);
  EXPECT_TRUE(root.exists("/dev/infiniband/uverbs0"));
  auto bytes = root.readBytes("/dev/infiniband/uverbs0");
  ASSERT_FALSE(bytes.has_value());
  EXPECT_NE(bytes.error().message.find("character device"), std::string::npos) << bytes.error().message;
  auto list = root.listDir("/dev/infiniband");
  ASSERT_TRUE(list.has_value());
  EXPECT_EQ(*list, std::vector<std::string>{"uverbs0"});
}

TEST_F(FileRootTest, ExistsIsFalseOnASymlinkLoop) {
  fs::create_symlink("loop2", dir_ / "sys/loop1");
  fs::create_symlink("loop1", dir_ / "sys/loop2");
  FileRoot root(dir_);
  EXPECT_FALSE(root.exists("/sys/loop1/x"));
  EXPECT_FALSE(root.isDirectory("/sys/loop1"));
}

TEST(PathHelpers, JoinAndBase) {
  EXPECT_EQ(joinPath("/sys/class", "net"), "/sys/class/net");
  EXPECT_EQ(joinPath("/sys/class/", "/net"), "/sys/class/net");
  EXPECT_EQ(baseName("/sys/class/infiniband/mlx5_0"), "mlx5_0");
  EXPECT_EQ(baseName("mlx5_0"), "mlx5_0");
}

}  // namespace
}  // namespace railkit
