// ethtool statistics: which driver statistics are PFC pause-frame counters,
// and the live SIOCETHTOOL read on a veth in a network namespace of the
// test's own (needs root; skipped otherwise).
#include "sys/ethtool.h"

#include <gtest/gtest.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "support/process.h"

namespace railkit::sys {
namespace {

TEST(EthtoolPfcPause, DriverNamesMapToPriorityAndDirection) {
  auto mlx = pfcPauseStat("rx_prio3_pause");
  ASSERT_TRUE(mlx);
  EXPECT_EQ(mlx->priority, 3);
  EXPECT_TRUE(mlx->received);
  auto tx = pfcPauseStat("tx_prio0_pause");
  ASSERT_TRUE(tx);
  EXPECT_EQ(tx->priority, 0);
  EXPECT_FALSE(tx->received);
  auto bnxt = pfcPauseStat("tx_pfc_ena_frames_pri7");
  ASSERT_TRUE(bnxt);
  EXPECT_EQ(bnxt->priority, 7);
  EXPECT_FALSE(bnxt->received);
  for (const char* other : {"rx_prio3_pause_duration", "rx_prio8_pause", "rx_prio_pause", "rx_pause_ctrl_phy",
                            "rx_prio3_bytes", "peer_ifindex", "xx_prio3_pause", "rx_prio33_pause", ""}) {
    EXPECT_FALSE(pfcPauseStat(other)) << other;
  }
}

TEST(EthtoolStats, NoStatisticsIsAnErrorNotAnEmptyList) {
  EXPECT_FALSE(liveEthtoolStats(""));
  EXPECT_FALSE(liveEthtoolStats(std::string(40, 'x')));
  EXPECT_FALSE(liveEthtoolStats("rk-no-such-if0"));
}

// A veth answers `ethtool -S` with peer_ifindex: the read works end to end.
TEST(EthtoolStats, LiveVethInOwnNamespace) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root for a network namespace";
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    if (::unshare(CLONE_NEWNET) != 0) ::_exit(77);
    if (railkit::testing::runProcess(railkit::testing::ProcessSpec({"ip", "link", "add", "rkv0", "type",
                                                                    "veth", "peer", "name", "rkv1"}))
            .status != 0)
      ::_exit(78);
    auto stats = liveEthtoolStats("rkv0");
    if (!stats) ::_exit(1);
    for (const auto& [name, value] : *stats)
      if (name == "peer_ifindex" && value > 0) ::_exit(0);
    ::_exit(2);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  if (WEXITSTATUS(status) == 77 || WEXITSTATUS(status) == 78)
    GTEST_SKIP() << "no network namespace or veth here";
  EXPECT_EQ(WEXITSTATUS(status), 0) << "1: the read failed, 2: no peer_ifindex statistic";
}

}  // namespace
}  // namespace railkit::sys
