// NodeBuilder trees look like sysfs: relative links resolve inside the root,
// config spaces carry ACS where asked, and the checked-in example equals what
// the tool writes today.
#include "support/node_builder.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>

#include "core/file_root.h"
#include "support/process.h"
#include "support/test_support.h"

namespace fs = std::filesystem;
using railkit::FileRoot;
using railkit::testing::NodeBuilder;

namespace {

fs::path tempDir(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / ("railkit-sys-nb-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  return dir;
}

// Every file and link of a tree: "f <content>", "l <target>".
std::map<std::string, std::string> listTree(const fs::path& dir) {
  std::map<std::string, std::string> out;
  for (auto it = fs::recursive_directory_iterator(dir); it != fs::recursive_directory_iterator(); ++it) {
    // Lexical: fs::relative would follow the links it is listing.
    std::string rel = it->path().lexically_relative(dir).string();
    if (it->is_symlink()) {
      out[rel] = "l " + fs::read_symlink(it->path()).string();
    } else if (it->is_directory()) {
      // git tracks files, not directories: compare only what a checkout can hold.
      continue;
    } else {
      std::ifstream in(it->path(), std::ios::binary);
      out[rel] = "f " + std::string(std::istreambuf_iterator<char>(in), {});
    }
  }
  return out;
}

}  // namespace

TEST(SysNodeBuilder, HealthyDgxLinksResolveInsideRoot) {
  fs::path dir = tempDir("dgx");
  railkit::testing::buildHealthyDgxH100(dir);
  FileRoot root(dir);
  auto names = root.listDir("/sys/class/infiniband");
  ASSERT_TRUE(names.has_value());
  ASSERT_EQ(names->size(), 8u);
  EXPECT_EQ(fs::read_symlink(dir / "sys/class/infiniband/mlx5_0").string(),
            "../../devices/pci0000:17/0000:17:01.0/0000:18:00.0/0000:19:00.0/0000:1a:00.0/"
            "infiniband/mlx5_0");
  auto resolved = root.resolve("/sys/class/infiniband/mlx5_0/device");
  ASSERT_TRUE(resolved.has_value());
  EXPECT_EQ(*resolved, "/sys/devices/pci0000:17/0000:17:01.0/0000:18:00.0/0000:19:00.0/0000:1a:00.0");
  EXPECT_EQ(root.readLine("/sys/class/infiniband/mlx5_3/ports/1/rate").value_or(""), "400 Gb/sec (4X NDR)");
  EXPECT_EQ(root.readLine("/sys/class/infiniband/mlx5_3/device/net/ib3/dev_port").value_or(""), "0");
  EXPECT_EQ(root.readLine("/sys/class/net/eth0/operstate").value_or(""), "up");
  auto eth0 = root.resolve("/sys/class/net/eth0");
  ASSERT_TRUE(eth0.has_value());
  EXPECT_EQ(*eth0, "/sys/devices/virtual/net/eth0");
  EXPECT_TRUE(root.exists("/dev/infiniband/uverbs7"));
  EXPECT_TRUE(root.exists("/sys/module/nvidia_peermem"));
  auto limits = root.readText("/proc/self/limits");
  ASSERT_TRUE(limits.has_value());
  EXPECT_NE(limits->find("Max locked memory         unlimited            unlimited"), std::string::npos);
  auto environ = root.readText("/proc/self/environ");
  ASSERT_TRUE(environ.has_value());
  EXPECT_NE(environ->find(std::string("NCCL_SOCKET_IFNAME=eth0") + '\0'), std::string::npos);
  fs::remove_all(dir);
}

TEST(SysNodeBuilder, BridgeConfigCarriesAcsAtChosenOffset) {
  fs::path dir = tempDir("acs");
  auto node = NodeBuilder::healthyDgxH100();
  node.setAcsAboveNic("mlx5_0", 0x0005);
  node.write(dir);
  FileRoot root(dir);
  auto bytes = root.readBytes("/sys/devices/pci0000:17/0000:17:01.0/config");
  ASSERT_TRUE(bytes.has_value());
  ASSERT_EQ(bytes->size(), 4096u);
  const auto& c = *bytes;
  EXPECT_EQ(c[0x0e], 0x01);  // bridge header
  uint32_t aer = c[0x100] | c[0x101] << 8 | c[0x102] << 16 | c[0x103] << 24;
  EXPECT_EQ(aer & 0xffff, 0x0001u);
  uint32_t next = aer >> 20;
  ASSERT_EQ(next, 0x148u);
  EXPECT_EQ(c[next] | c[next + 1] << 8, 0x000d);
  EXPECT_EQ(c[next + 6] | c[next + 7] << 8, 0x0005);
  // A bridge above another NIC keeps ACS off.
  auto other = root.readBytes("/sys/devices/pci0000:38/0000:38:01.0/config");
  ASSERT_TRUE(other.has_value());
  EXPECT_EQ((*other)[0x148 + 6], 0);

  node.setBridgeConfigSize(256).write(dir);
  auto short_cfg = root.readBytes("/sys/devices/pci0000:17/0000:17:01.0/config");
  ASSERT_TRUE(short_cfg.has_value());
  EXPECT_EQ(short_cfg->size(), 256u);
  fs::remove_all(dir);
}

TEST(SysNodeBuilder, MutationsShowInTree) {
  fs::path dir = tempDir("mut");
  auto node = NodeBuilder::healthyRoce();
  node.setPortState("mlx5_2", 1, "1: DOWN", "3: Disabled")
      .setMemlock(65536)
      .dropCapIpcLock()
      .setShmKib(65536)
      .addVfs("mlx5_0", 2)
      .setGidNetdev("mlx5_1", 1, 3, "net1")
      .unloadModule("nvidia_peermem")
      .removeUverbs()
      .moveNicFar("mlx5_4")
      .unsetEnv("NCCL_SOCKET_IFNAME");
  node.write(dir);
  FileRoot root(dir);
  EXPECT_EQ(root.readLine("/sys/class/infiniband/mlx5_2/ports/1/state").value_or(""), "1: DOWN");
  EXPECT_EQ(root.readLine("/sys/class/infiniband/mlx5_1/ports/1/gid_attrs/ndevs/3").value_or(""), "net1");
  EXPECT_EQ(root.readLine("/sys/class/infiniband/mlx5_0/device/sriov_numvfs").value_or(""), "2");
  auto vf = root.resolve("/sys/class/infiniband/mlx5_0/device/virtfn1/physfn");
  ASSERT_TRUE(vf.has_value());
  EXPECT_EQ(*vf, "/sys/devices/pci0000:17/0000:17:01.0/0000:18:00.0/0000:19:00.0/0000:1a:00.0");
  EXPECT_FALSE(root.exists("/sys/module/nvidia_peermem"));
  EXPECT_FALSE(root.exists("/dev/infiniband/uverbs0"));
  EXPECT_EQ(root.readLine("/sys/class/infiniband/mlx5_4/device/numa_node").value_or(""), "0");
  EXPECT_EQ(root.readLine("/sys/class/net/ens4f0np0/mtu").value_or(""), "9000");
  auto status = root.readText("/proc/self/status");
  ASSERT_TRUE(status.has_value());
  EXPECT_NE(status->find("CapEff:\t00000000a80425fb"), std::string::npos);
  auto mounts = root.readText("/proc/self/mountinfo");
  ASSERT_TRUE(mounts.has_value());
  EXPECT_NE(mounts->find("/dev/shm rw,nosuid,nodev,noexec,relatime - tmpfs shm rw,size=65536k"),
            std::string::npos);
  fs::remove_all(dir);
}

TEST(SysNodeBuilder, CheckedInExampleMatchesGenerator) {
  fs::path dir = tempDir("example");
  std::string cmd = std::string(RAILKIT_MAKE_NODE_FIXTURE) + " example-dgx-h100 " + dir.string();
  auto made = railkit::testing::runShell(cmd, 120);
  ASSERT_EQ(made.status, 0) << made.err;
  fs::path example = railkit::testing::sourceDir() / "examples" / "dgx-h100-8gpu";
  ASSERT_TRUE(fs::is_directory(example)) << example;
  auto want = listTree(dir);
  auto have = listTree(example);
  have.erase("README.md");
  for (const auto& [path, entry] : want) {
    auto it = have.find(path);
    ASSERT_NE(it, have.end()) << "missing in example: " << path;
    EXPECT_EQ(it->second, entry) << path;
  }
  for (const auto& [path, entry] : have) EXPECT_TRUE(want.count(path)) << "extra in example: " << path;
  fs::remove_all(dir);
}
