// Network namespaces of processes: the ns/net link, the pod UID in a cgroup
// path, the list from a fixture /proc tree and from the live one, and
// entering a namespace a child of the test holds (root; skipped otherwise).
#include "sys/netns.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "support/netns_child.h"
#include "support/test_support.h"
#include "sys/rdma_netlink.h"

namespace railkit::sys {
namespace {

namespace fs = std::filesystem;

TEST(NetnsLink, InodeOfTheLinkTarget) {
  EXPECT_EQ(parseNetnsLink("net:[4026531840]"), 4026531840u);
  EXPECT_EQ(parseNetnsLink("net:[1]"), 1u);
  for (const char* other : {"", "net:[]", "net:[12", "net:12]", "mnt:[4026531840]", "net:[-1]", "net:[12a]",
                            "net:[99999999999999999999999]", "/proc/1/ns/net"})
    EXPECT_FALSE(parseNetnsLink(other)) << other;
}

TEST(PodUid, FromCgroupfsAndSystemdDriverPaths) {
  // cgroup v2, systemd driver (kubelet --cgroup-driver=systemd, containerd).
  EXPECT_EQ(podUidFromCgroup("0::/kubepods.slice/kubepods-besteffort.slice/"
                             "kubepods-besteffort-pod5f0c5a57_8d2e_4c3b_9a41_0b8e2d6f7c11.slice/"
                             "cri-containerd-3f1e.scope\n"),
            "5f0c5a57-8d2e-4c3b-9a41-0b8e2d6f7c11");
  // cgroup v1, cgroupfs driver: the UID keeps its dashes; the first line with one wins.
  EXPECT_EQ(podUidFromCgroup("12:pids:/kubepods/burstable/pod0d1a3f2e-5b6c-4d7e-8f90-123456789abc/9b2c\n"
                             "11:memory:/kubepods/burstable/pod0d1a3f2e-5b6c-4d7e-8f90-123456789abc/9b2c\n"),
            "0d1a3f2e-5b6c-4d7e-8f90-123456789abc");
  // A guaranteed pod sits right under kubepods.
  EXPECT_EQ(podUidFromCgroup("0::/kubepods/podaaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee/x\n"),
            "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee");
  EXPECT_EQ(podUidFromCgroup("0::/system.slice/containerd.service\n"), "");
  EXPECT_EQ(podUidFromCgroup("0::/kubepods/podNOTAUID/x"), "");
  EXPECT_EQ(podUidFromCgroup("0::/kubepods/pod0d1a3f2e-5b6c"), "") << "cut short";
  EXPECT_EQ(podUidFromCgroup(""), "");
}

class ProcTree : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = railkit::testing::freshTestDir("rk-netns"); }
  void TearDown() override { fs::remove_all(dir_); }
  void process(int pid, const std::string& link, const std::string& cgroup = "") {
    fs::path p = dir_ / "proc" / std::to_string(pid);
    fs::create_directories(p / "ns");
    fs::create_symlink(link, p / "ns" / "net");  // dangling, as on a real /proc seen from outside
    if (!cgroup.empty()) std::ofstream(p / "cgroup") << cgroup;
  }
  fs::path dir_;
};

TEST_F(ProcTree, DistinctNamespacesInPidOrderWithTheirPod) {
  process(1, "net:[4026531840]", "0::/init.scope\n");
  process(30, "net:[4026531840]");
  process(4100, "net:[4026532500]",
          "0::/kubepods/besteffort/pod11111111-2222-3333-4444-555555555555/pause\n");
  process(4200, "net:[4026532500]", "0::/kubepods/besteffort/pod99999999-2222-3333-4444-555555555555/x\n");
  process(900, "net:[4026532777]");
  process(901, "not a namespace");
  fs::create_directories(dir_ / "proc" / "sys");
  fs::create_directories(dir_ / "proc" / "0");
  auto list = listProcessNetns(FileRoot(dir_), 100);
  ASSERT_EQ(list.size(), 3u);
  EXPECT_EQ(list[0].inode, 4026531840u);
  EXPECT_EQ(list[0].pid, 1);
  EXPECT_EQ(list[0].pod_uid, "");
  EXPECT_EQ(list[1].inode, 4026532777u);
  EXPECT_EQ(list[1].pid, 900);
  EXPECT_EQ(list[2].inode, 4026532500u);
  EXPECT_EQ(list[2].pid, 4100) << "numeric order, not name order";
  EXPECT_EQ(list[2].pod_uid, "11111111-2222-3333-4444-555555555555") << "the lowest pid's cgroup";
  EXPECT_EQ(listProcessNetns(FileRoot(dir_), 2).size(), 2u);
  EXPECT_TRUE(listProcessNetns(FileRoot(dir_ / "nothing-here"), 100).empty());
}

TEST(NetnsLive, EntersTheNamespaceOfAnotherProcessOnItsOwnThread) {
  railkit::testing::NetnsChild child;
  if (!child.ok()) GTEST_SKIP() << "no network namespace of our own: " << child.why();
  auto own = ownNetnsInode();
  ASSERT_TRUE(own) << own.error().message;
  struct stat st {};
  std::string child_ns = "/proc/" + std::to_string(child.pid()) + "/ns/net";
  ASSERT_EQ(::stat(child_ns.c_str(), &st), 0);
  ASSERT_NE(st.st_ino, *own);

  auto live = listProcessNetns(FileRoot("/"), 1 << 20);
  bool listed = false;
  for (const auto& e : live) listed |= e.inode == st.st_ino && e.pid == child.pid();
  EXPECT_TRUE(listed) << "the child's namespace is in the live list";

  std::optional<Result<uint64_t>> inside;
  std::thread::id body_thread;
  auto entered = runInNetnsOf(FileRoot("/"), child.pid(), [&] {
    inside = ownNetnsInode();
    body_thread = std::this_thread::get_id();
  });
  ASSERT_TRUE(entered) << entered.error().message;
  ASSERT_TRUE(inside && *inside);
  EXPECT_EQ(**inside, st.st_ino) << "the body ran in the child's namespace";
  EXPECT_NE(body_thread, std::this_thread::get_id());
  auto after = ownNetnsInode();
  ASSERT_TRUE(after);
  EXPECT_EQ(*after, *own) << "the calling thread never left its namespace";
}

// The real RDMA netlink query run inside another namespace: it answers or
// fails there exactly as it does here (the module is global), and cleanly.
TEST(NetnsLive, RdmaNetlinkQueryInsideAnotherNamespace) {
  railkit::testing::NetnsChild child;
  if (!child.ok()) GTEST_SKIP() << "no network namespace of our own: " << child.why();
  auto here = liveRdmaStatistics(1000);
  std::optional<Result<RdmaNlStatistics>> there;
  auto entered = runInNetnsOf(FileRoot("/"), child.pid(), [&] { there = liveRdmaStatistics(1000); });
  ASSERT_TRUE(entered) << entered.error().message;
  ASSERT_TRUE(there);
  ASSERT_EQ(bool(*there), bool(here)) << (here ? there->error().message : here.error().message);
  if (!here) {
    EXPECT_EQ(there->error().code, here.error().code);
    EXPECT_EQ(there->error().message, here.error().message);
    return;
  }
  // ib_core loaded: a fresh namespace holds no device in exclusive mode and
  // sees the node's in shared mode; either way, never more than here.
  EXPECT_LE((*there)->devices.size(), here->devices.size());
}

TEST(NetnsLive, AProcessThatIsGoneIsAnError) {
  bool ran = false;
  auto st = runInNetnsOf(FileRoot("/"), 1 << 30, [&] { ran = true; });
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code, ErrorCode::kIo);
  EXPECT_NE(st.error().message.find("ns/net"), std::string::npos) << st.error().message;
  EXPECT_FALSE(ran);
}

}  // namespace
}  // namespace railkit::sys
