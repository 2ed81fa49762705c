#include "core/file_root.h"

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

namespace railkit {
namespace {

namespace fs = std::filesystem;

class FileRootTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("railkit-fileroot-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "sys/devices/pci0000:00/0000:00:01.0/0000:3b:00.0/infiniband/mlx5_0");
    fs::create_directories(dir_ / "sys/class/infiniband");
    write("sys/devices/pci0000:00/0000:00:01.0/0000:3b:00.0/infiniband/mlx5_0/fw_ver", "28.39.1002\n");
    fs::create_symlink("../../devices/pci0000:00/0000:00:01.0/0000:3b:00.0/infiniband/mlx5_0",
                       dir_ / "sys/class/infiniband/mlx5_0");
  }
  void TearDown() override { fs::remove_all(dir_); }
  void write(const std::string& rel, const std::string& text) {
    std::ofstream(dir_ / rel) << text;
  }
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

TEST(PathHelpers, JoinAndBase) {
  EXPECT_EQ(joinPath("/sys/class", "net"), "/sys/class/net");
  EXPECT_EQ(joinPath("/sys/class/", "/net"), "/sys/class/net");
  EXPECT_EQ(baseName("/sys/class/infiniband/mlx5_0"), "mlx5_0");
  EXPECT_EQ(baseName("mlx5_0"), "mlx5_0");
}

}  // namespace
}  // namespace railkit
