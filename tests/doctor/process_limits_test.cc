// memlock-limit, ipc-lock-missing and rdma-port-down on real /proc captures and on sysfs text
// that contradicts itself (issue 30, point 10): a finite memlock limit near
// 2^64 or at the machine's memory is unlimited in effect, and a phys_state
// whose text disagrees with its code is quoted with both.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "doctor/rule.h"
#include "model/collect.h"
#include "support/node_builder.h"
#include "support/node_scratch.h"
#include "support/test_support.h"

namespace fs = std::filesystem;
using railkit::Finding;
using railkit::Severity;
using railkit::testing::NodeBuilder;

namespace {

constexpr const char* kScratch = "railkit-doctor-limits";
[[maybe_unused]] ::testing::Environment* const kScratchCleanup =
    ::testing::AddGlobalTestEnvironment(new railkit::testing::NodeScratchCleanup(kScratch));

// MemTotal of the captured meminfo (15666184 kB).
constexpr uint64_t kCapturedMemTotal = 15666184ull * 1024;

fs::path procfsFixture(const char* name) {
  return railkit::testing::fixturesDir() / "doctor" / "procfs" / name;
}

class ProcessLimitsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = railkit::testing::nodeScratch(kScratch) /
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  void write(NodeBuilder node) { node.write(dir_); }
  void copyIn(const char* fixture, const char* path) {
    fs::create_directories((dir_ / path).parent_path());
    fs::copy_file(procfsFixture(fixture), dir_ / path, fs::copy_options::overwrite_existing);
  }
  railkit::model::Inventory inventory() {
    auto inv = railkit::model::collectInventory(railkit::FileRoot(dir_), {});
    EXPECT_TRUE(inv.has_value()) << (inv ? "" : inv.error().message);
    return inv ? *inv : railkit::model::Inventory{};
  }
  std::vector<Finding> findings(const std::string& id) {
    auto inv = inventory();
    std::vector<Finding> out;
    for (auto& f : railkit::doctor::runRules(railkit::doctor::DoctorInput{inv, nullptr}))
      if (f.id == id) out.push_back(std::move(f));
    return out;
  }

  fs::path dir_;
};

TEST_F(ProcessLimitsTest, CapturedLimitOfTwoTo64MinusOneMiBIsUnlimited) {
  // Without CAP_IPC_LOCK a finite limit would be an error: the strictest case.
  write(NodeBuilder::healthyDgxH100().setMemlock(65536).dropCapIpcLock());
  copyIn("proc_26231_limits", "proc/self/limits");
  auto inv = inventory();
  ASSERT_TRUE(inv.process.memlock.known);
  EXPECT_FALSE(inv.process.memlock.unlimited);  // the capture says a number, not the word
  EXPECT_EQ(inv.process.memlock.bytes, 18446744073708503040ull);
  EXPECT_TRUE(findings("memlock-limit").empty());
}

TEST_F(ProcessLimitsTest, LimitAtTheMachinesMemoryIsUnlimitedBelowItIsNot) {
  write(NodeBuilder::healthyDgxH100().setMemlock(kCapturedMemTotal));
  copyIn("proc_meminfo", "proc/meminfo");
  EXPECT_EQ(inventory().process.mem_total_bytes, kCapturedMemTotal);
  EXPECT_TRUE(findings("memlock-limit").empty());

  write(NodeBuilder::healthyDgxH100().setMemlock(kCapturedMemTotal - 4096));
  copyIn("proc_meminfo", "proc/meminfo");
  auto below = findings("memlock-limit");
  ASSERT_EQ(below.size(), 1u);
  EXPECT_EQ(below[0].severity, Severity::kWarning);
  EXPECT_NE(below[0].message.find(std::to_string(kCapturedMemTotal - 4096)), std::string::npos);
}

// ipc-lock-missing agrees with memlock-limit on what "unlimited" is, and with
// lint on what follows: without CAP_IPC_LOCK under a limit unlimited in
// effect registration works, so it is info (lint's severity on platforms
// that run containers with memlock unlimited); under a finite one an error.
TEST_F(ProcessLimitsTest, IpcLockMissingIsInfoUnderACapturedUnlimitedLimit) {
  write(NodeBuilder::healthyDgxH100().dropCapIpcLock());
  copyIn("proc_26231_limits", "proc/self/limits");
  auto found = findings("ipc-lock-missing");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].severity, Severity::kInfo);
  EXPECT_NE(found[0].message.find("unlimited in effect"), std::string::npos) << found[0].message;
  ASSERT_EQ(found[0].evidence.size(), 2u);
  EXPECT_EQ(found[0].evidence[1].text, "Max locked memory 18446744073708503040");
}

TEST_F(ProcessLimitsTest, IpcLockMissingFollowsTheMachinesMemory) {
  write(NodeBuilder::healthyDgxH100().dropCapIpcLock().setMemlock(kCapturedMemTotal));
  copyIn("proc_meminfo", "proc/meminfo");
  auto at = findings("ipc-lock-missing");
  ASSERT_EQ(at.size(), 1u);
  EXPECT_EQ(at[0].severity, Severity::kInfo);

  write(NodeBuilder::healthyDgxH100().dropCapIpcLock().setMemlock(kCapturedMemTotal - 4096));
  copyIn("proc_meminfo", "proc/meminfo");
  auto below = findings("ipc-lock-missing");
  ASSERT_EQ(below.size(), 1u);
  EXPECT_EQ(below[0].severity, Severity::kError);
  EXPECT_NE(below[0].message.find("limited by RLIMIT_MEMLOCK"), std::string::npos) << below[0].message;
}

TEST_F(ProcessLimitsTest, WithoutMeminfoALargeButFiniteLimitStillWarns) {
  write(NodeBuilder::healthyDgxH100().setMemlock(1ull << 40));
  fs::remove(dir_ / "proc" / "meminfo");
  EXPECT_FALSE(inventory().process.mem_total_bytes.has_value());
  EXPECT_EQ(findings("memlock-limit").size(), 1u);
}

TEST_F(ProcessLimitsTest, PhysStateTextThatDisagreesWithItsCodeIsQuotedWithIt) {
  write(NodeBuilder::healthyDgxH100().setPortState("mlx5_0", 1, "4: ACTIVE", "4: ACTIVE"));
  auto down = findings("rdma-port-down");
  ASSERT_EQ(down.size(), 1u);
  EXPECT_EQ(down[0].subject, "mlx5_0:1");
  EXPECT_NE(down[0].message.find("\"4: ACTIVE\" (code 4 is PortConfigurationTraining, not LinkUp"),
            std::string::npos)
      << down[0].message;
  bool quoted = false;
  for (const auto& e : down[0].evidence) quoted = quoted || e.text == "4: ACTIVE";
  EXPECT_TRUE(quoted);
  // A port the code calls LinkUp carries traffic whatever its text says.
  write(NodeBuilder::healthyDgxH100().setPortState("mlx5_0", 1, "4: ACTIVE", "5: Up"));
  EXPECT_TRUE(findings("rdma-port-down").empty());
}

TEST_F(ProcessLimitsTest, AgreeingPhysStateIsQuotedPlainly) {
  write(NodeBuilder::healthyDgxH100().setPortState("mlx5_3", 1, "1: DOWN", "3: Disabled"));
  auto down = findings("rdma-port-down");
  ASSERT_EQ(down.size(), 1u);
  EXPECT_NE(down[0].message.find("is DOWN / Disabled"), std::string::npos) << down[0].message;
}

}  // namespace
