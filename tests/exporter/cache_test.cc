// MetricsCache refreshes in the background at its interval and runs the
// doctor rules at most every doctor_interval; parseListen takes HOST:PORT.
#include "exporter/cache.h"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>

#include "exporter/server.h"
#include "support/node_builder.h"
#include "support/test_support.h"

namespace fs = std::filesystem;
using railkit::testing::NodeBuilder;
namespace ex = railkit::exporter;
using namespace std::chrono_literals;

namespace {

void writeFile(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
  ASSERT_TRUE(out.good()) << path;
}

// Waits (bounded) until the cache's text contains `needle`.
bool eventuallyContains(const ex::MetricsCache& cache, const std::string& needle) {
  auto deadline = std::chrono::steady_clock::now() + 10s;
  while (std::chrono::steady_clock::now() < deadline) {
    if (cache.text().find(needle) != std::string::npos) return true;
    std::this_thread::sleep_for(20ms);
  }
  return false;
}

class ExporterCache : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = railkit::testing::freshTestDir("rk-exporter-cache");
    auto node = NodeBuilder::healthyDgxH100();
    node.port("mlx5_0", 1).counters = {{"port_xmit_data", "10\n"}};
    node.write(dir_);
    port_dir_ = dir_ / "sys/class/infiniband/mlx5_0/ports/1";
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
  fs::path port_dir_;
};

TEST_F(ExporterCache, FirstReadingIsThereAtOnceAndLaterOnesFollow) {
  ex::CacheOptions options;
  options.interval = 50ms;
  auto cache = ex::MetricsCache::start(railkit::FileRoot(dir_), options);
  ASSERT_TRUE(cache.has_value());
  const std::string tx = "railkit_rdma_port_transmitted_bytes_total{device=\"mlx5_0\",port=\"1\"} ";
  EXPECT_NE((*cache)->text().find(tx + "40\n"), std::string::npos) << (*cache)->text();
  writeFile(port_dir_ / "counters/port_xmit_data", "1000\n");
  EXPECT_TRUE(eventuallyContains(**cache, tx + "4000\n")) << (*cache)->text();
}

TEST_F(ExporterCache, DoctorRunsAtMostEveryDoctorInterval) {
  ex::CacheOptions options;
  options.interval = 50ms;
  options.doctor_interval = 1h;
  auto cache = ex::MetricsCache::start(railkit::FileRoot(dir_), options);
  ASSERT_TRUE(cache.has_value());
  EXPECT_EQ((*cache)->text().find("rdma-port-down"), std::string::npos);
  writeFile(port_dir_ / "state", "1: DOWN\n");
  writeFile(port_dir_ / "phys_state", "3: Disabled\n");
  // The port metrics follow the next reading; the findings keep the old run.
  EXPECT_TRUE(eventuallyContains(**cache, "railkit_rdma_port_up{device=\"mlx5_0\",port=\"1\"} 0\n"));
  EXPECT_EQ((*cache)->text().find("rdma-port-down"), std::string::npos);

  // With a short doctor interval the finding appears.
  options.doctor_interval = 0ms;
  auto fresh = ex::MetricsCache::start(railkit::FileRoot(dir_), options);
  ASSERT_TRUE(fresh.has_value());
  EXPECT_NE((*fresh)->text().find("railkit_doctor_finding{id=\"rdma-port-down\""), std::string::npos)
      << (*fresh)->text();
}

TEST_F(ExporterCache, AVanishedRootKeepsTheLastText) {
  // Counts the failed background readings, so the test waits for readings
  // rather than for time.
  std::mutex mu;
  std::condition_variable cv;
  int failed = 0;
  auto failedReadings = [&](int n) {
    std::unique_lock<std::mutex> lock(mu);
    // A reading every 20 ms: 2 s is far more than ten times what n take.
    return cv.wait_for(lock, 2s, [&] { return failed >= n; });
  };
  ex::CacheOptions options;
  options.interval = 20ms;
  options.after_reading = [&](const railkit::Status& outcome) {
    if (outcome) return;
    {
      std::lock_guard<std::mutex> lock(mu);
      ++failed;
    }
    cv.notify_all();
  };
  auto cache = ex::MetricsCache::start(railkit::FileRoot(dir_), options);
  ASSERT_TRUE(cache.has_value());
  // Readings of a root that is gone fail, and a failed reading changes
  // nothing: once a reading has failed, any reading in flight at the rename
  // is over, and the text (duration line included) stays as it was, whole,
  // over the failed readings that follow.
  fs::path gone = dir_.string() + "-gone";
  fs::rename(dir_, gone);
  ASSERT_TRUE(failedReadings(1)) << "no reading failed within 2 s of the rename";
  std::string settled = (*cache)->text();
  ASSERT_TRUE(failedReadings(4)) << "no three more failed readings within 2 s";
  EXPECT_EQ((*cache)->text(), settled);
  EXPECT_NE(settled.find("railkit_exporter_read_errors_total "), std::string::npos) << settled;
  fs::rename(gone, dir_);
}

TEST_F(ExporterCache, AMissingRootFailsAtStart) {
  auto cache = ex::MetricsCache::start(railkit::FileRoot(dir_ / "nowhere"), ex::CacheOptions{});
  ASSERT_FALSE(cache.has_value());
  EXPECT_EQ(cache.error().code, railkit::ErrorCode::kNotFound);
}

TEST(ExporterListen, ParsesHostAndPort) {
  auto v4 = ex::parseListen("127.0.0.1:9877");
  ASSERT_TRUE(v4.has_value());
  EXPECT_EQ(v4->host, "127.0.0.1");
  EXPECT_EQ(v4->port, 9877);
  auto v6 = ex::parseListen("[::1]:0");
  ASSERT_TRUE(v6.has_value());
  EXPECT_EQ(v6->host, "::1");
  EXPECT_EQ(v6->port, 0);
  auto def = ex::parseListen(ex::kDefaultListen);
  ASSERT_TRUE(def.has_value());
  EXPECT_EQ(def->host, "127.0.0.1");
  for (const char* bad :
       {"", "9877", ":9877", "host:", "host:65536", "host:-1", "::1:80", "[::1:80", "h:8x"}) {
    auto r = ex::parseListen(bad);
    EXPECT_FALSE(r.has_value()) << bad;
    if (!r) {
      EXPECT_EQ(r.error().code, railkit::ErrorCode::kUsage) << bad;
    }
  }
}

}  // namespace
