// `exporter --pods`: what readPods finds in the namespaces of a /proc (a
// child of the test in a namespace of its own, entered for real; the RDMA
// query itself is a stand-in, since the test machine may have no RDMA), what
// it says when there is no RDMA netlink or ib_core shares devices, and the
// exact lines renderPods writes.
#include "exporter/pods.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "exporter/metrics.h"
#include "support/netns_child.h"
#include "sys/netns.h"

namespace railkit::exporter {
namespace {

// Answers as a namespace holding one device named after the namespace's
// inode, so the caller can tell which namespace the query ran in.
Result<sys::RdmaNlStatistics> fakeQuery() {
  auto inode = sys::ownNetnsInode();
  if (!inode) return tl::unexpected(inode.error());
  sys::RdmaNlStatistics s;
  std::string name = "dev" + std::to_string(*inode);
  s.devices.push_back({0, name, 1});
  s.ports.push_back({0, name, 1, {{"rx_write_requests", 5}, {"np_cnp_sent", *inode % 1000}}});
  return s;
}

bool has(const std::string& text, const std::string& line) {
  return text.find("\n" + line + "\n") != std::string::npos || text.rfind(line + "\n", 0) == 0;
}

TEST(PodsRead, EntersEachNamespaceAndKeepsThoseWithDevices) {
  railkit::testing::NetnsChild child;
  if (!child.ok()) GTEST_SKIP() << "no network namespace of our own: " << child.why();
  struct stat st {};
  std::string ns = "/proc/" + std::to_string(child.pid()) + "/ns/net";
  ASSERT_EQ(::stat(ns.c_str(), &st), 0);
  auto own = sys::ownNetnsInode();
  ASSERT_TRUE(own);

  PodsOptions options;
  options.query = fakeQuery;
  options.netns_shared = false;
  auto reading = readPods(FileRoot("/"), options);
  EXPECT_EQ(reading.unsupported, "");
  EXPECT_GE(reading.namespaces, 1u);
  const PodNetns* mine = nullptr;
  for (const auto& n : reading.with_rdma) {
    EXPECT_NE(n.inode, *own) << "the exporter's own namespace is not a pod's";
    if (n.inode == st.st_ino) mine = &n;
  }
  ASSERT_NE(mine, nullptr) << "the child's namespace was read";
  EXPECT_EQ(mine->devices, 1u);
  ASSERT_EQ(mine->ports.size(), 1u);
  EXPECT_EQ(mine->ports[0].device, "dev" + std::to_string(st.st_ino))
      << "the query ran inside the child's namespace";

  Exposition out;
  renderPods(out, reading, 3);
  std::string n = std::to_string(st.st_ino);
  std::string labels = "netns=\"" + n + "\",pod_uid=\"\"";
  EXPECT_TRUE(has(out.text(), "railkit_pod_rdma_devices{" + labels + "} 1")) << out.text();
  EXPECT_TRUE(has(out.text(), "railkit_pod_rdma_hw_events_total{" + labels + ",device=\"dev" + n +
                                  "\",port=\"1\",counter=\"np_cnp_sent\"} " +
                                  std::to_string(st.st_ino % 1000)))
      << out.text();
  EXPECT_TRUE(has(out.text(), "railkit_exporter_pods_supported 1"));
  EXPECT_TRUE(
      has(out.text(), "railkit_exporter_pod_network_namespaces " + std::to_string(reading.namespaces)));
  EXPECT_TRUE(has(out.text(), "railkit_exporter_pod_netns_errors_total 3"));
}

TEST(PodsRead, NoRdmaNetlinkIsSaidAndNothingIsEntered) {
  int calls = 0;
  PodsOptions options;
  options.query = [&]() -> Result<sys::RdmaNlStatistics> {
    ++calls;
    return makeError(ErrorCode::kUnavailable, "the kernel has no RDMA netlink (ib_core not loaded)");
  };
  auto reading = readPods(FileRoot("/"), options);
  EXPECT_EQ(reading.unsupported, "the kernel has no RDMA netlink (ib_core not loaded)");
  EXPECT_EQ(calls, 1) << "one probe in our own namespace, none in others";
  EXPECT_EQ(reading.namespaces, 0u);
  EXPECT_TRUE(reading.with_rdma.empty());
  Exposition out;
  renderPods(out, reading, 0);
  EXPECT_TRUE(has(out.text(), "railkit_exporter_pods_supported 0"));
  EXPECT_EQ(out.text().find("railkit_pod_rdma_devices{"), std::string::npos);
}

TEST(PodsRead, SharedNetnsModeIsNotReadPerPod) {
  int calls = 0;
  PodsOptions options;
  options.query = [&] {
    ++calls;
    return fakeQuery();
  };
  options.netns_shared = true;
  auto reading = readPods(FileRoot("/"), options);
  EXPECT_NE(reading.unsupported.find("netns_mode is shared"), std::string::npos) << reading.unsupported;
  EXPECT_EQ(calls, 1) << "the probe in our own namespace only";
  EXPECT_EQ(reading.namespaces, 0u);
}

TEST(PodsRead, ANamespaceThatCannotBeEnteredIsCountedNotFatal) {
  // A /proc tree whose ns/net links name namespaces but are no real files.
  auto dir = std::filesystem::temp_directory_path() / ("rk-pods-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  for (int pid : {1, 77, 78}) {
    std::filesystem::create_directories(dir / "proc" / std::to_string(pid) / "ns");
    std::filesystem::create_symlink("net:[" + std::to_string(100 + pid) + "]",
                                    dir / "proc" / std::to_string(pid) / "ns" / "net");
  }
  PodsOptions options;
  options.query = fakeQuery;
  auto reading = readPods(FileRoot(dir), options);
  std::filesystem::remove_all(dir);
  EXPECT_EQ(reading.unsupported, "");
  EXPECT_EQ(reading.namespaces, 2u) << "pid 1's namespace is the host's";
  EXPECT_EQ(reading.errors, 2u);
  EXPECT_TRUE(reading.with_rdma.empty());
  EXPECT_NE(reading.first_error.find("netns 177: open "), std::string::npos) << reading.first_error;
}

TEST(PodsRead, ARootWithoutProcIsSaid) {
  auto dir = std::filesystem::temp_directory_path() / ("rk-pods-noproc-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / "sys");
  PodsOptions options;
  options.query = fakeQuery;
  auto reading = readPods(FileRoot(dir), options);
  std::filesystem::remove_all(dir);
  EXPECT_NE(reading.unsupported.find("no /proc under the root"), std::string::npos) << reading.unsupported;
  EXPECT_EQ(reading.namespaces, 0u);
}

TEST(PodsRender, OnlyWithPodsDoTheFamiliesAppear) {
  NodeReading reading;
  std::string without = renderMetrics(reading, {}, ExporterStats{});
  EXPECT_EQ(without.find("railkit_pod_"), std::string::npos);
  EXPECT_EQ(without.find("railkit_exporter_pods_supported"), std::string::npos);
  reading.pods = PodsReading{};
  reading.pods->with_rdma.push_back(PodNetns{4026532500,
                                             "0d1a3f2e-5b6c-4d7e-8f90-123456789abc",
                                             2,
                                             {PodPort{"mlx5_3", 1, {{"rp_cnp_handled", 1480}}}}});
  ExporterStats stats;
  stats.pod_netns_errors_total = 4;
  std::string with = renderMetrics(reading, {}, stats);
  const std::string l = "netns=\"4026532500\",pod_uid=\"0d1a3f2e-5b6c-4d7e-8f90-123456789abc\"";
  EXPECT_TRUE(has(with, "railkit_pod_rdma_devices{" + l + "} 2")) << with;
  EXPECT_TRUE(has(with, "railkit_pod_rdma_hw_events_total{" + l +
                            ",device=\"mlx5_3\",port=\"1\",counter=\"rp_cnp_handled\"} 1480"))
      << with;
  EXPECT_TRUE(has(with, "railkit_exporter_pod_netns_errors_total 4"));
  EXPECT_TRUE(has(with, "# TYPE railkit_pod_rdma_hw_events_total counter"));
  // The node's families are unchanged around them.
  EXPECT_TRUE(has(with, "railkit_exporter_read_errors_total 0"));
}

}  // namespace
}  // namespace railkit::exporter
