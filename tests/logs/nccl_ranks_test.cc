// The per-rank view (logs/nccl_rank.h) on real NCCL lines. Each excerpt is
// a few lines as posted in the thread or file named above it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "logs/nccl_log.h"
#include "nccl_log_test_util.h"
#include "support/test_support.h"

namespace railkit::logs {
namespace {

using ::testing::ElementsAre;

NcclRanks ranksOf(const std::string& text) {
  NcclLogAnalyzer a("t.log");
  testutil::feedText(a, text);
  return a.facts().per_rank;
}

const NcclRank* rank(const NcclRanks& ranks, uint64_t id) {
  for (const auto& r : ranks.ranks)
    if (r.rank == id) return &r;
  return nullptr;
}

// https://github.com/CCI-MOC/roce-testing/blob/24e67d1/RHELAI/3_nccl_tests/logs/sendrecv_roce_4gpu.log
// (../shared/data/nccl-logs/037.log): one process drives 4 GPUs, one rank each.
const char* kOneProcessFourGpus =
    "MOC-R4PCC04U37:574629:574651 [0] NCCL INFO NET/Plugin: Could not find: libnccl-net.so. Using internal "
    "net plugin.\n"
    "MOC-R4PCC04U37:574629:574651 [0] NCCL INFO NET/IB : Using [0]mlx5_5:1/RoCE [RO]; OOB "
    "eno7np0:169.254.103.56<0>\n"
    "MOC-R4PCC04U37:574629:574651 [0] NCCL INFO Using network IB\n"
    "MOC-R4PCC04U37:574629:574653 [2] NCCL INFO Using network IB\n"
    "MOC-R4PCC04U37:574629:574653 [2] NCCL INFO ncclCommInitRank comm 0x61f87a0 rank 2 nranks 8 cudaDev 2 "
    "nvmlDev 2 busId a6000 commId 0x4a8fb6ecbba1a10a - Init START\n"
    "MOC-R4PCC04U37:574629:574651 [0] NCCL INFO ncclCommInitRank comm 0x60f3a40 rank 0 nranks 8 cudaDev 0 "
    "nvmlDev 0 busId 6000 commId 0x4a8fb6ecbba1a10a - Init START\n"
    "MOC-R4PCC04U37:574629:574654 [3] NCCL INFO ncclCommInitRank comm 0x627aec0 rank 3 nranks 8 cudaDev 3 "
    "nvmlDev 3 busId c6000 commId 0x4a8fb6ecbba1a10a - Init START\n"
    "MOC-R4PCC04U37:574629:574666 [2] NCCL INFO Channel 00/1 : 2[2] -> 3[3] via P2P/direct pointer\n"
    "MOC-R4PCC04U37:574629:574666 [2] NCCL INFO Channel 02/1 : 2[2] -> 3[3] via P2P/direct pointer\n"
    "MOC-R4PCC04U37:574629:574665 [3] NCCL INFO Channel 01/1 : 3[3] -> 4[0] [send] via "
    "NET/IB/1(2)/GDRDMA/Shared\n"
    "MOC-R4PCC04U37:574629:574665 [3] NCCL INFO Channel 03/1 : 3[3] -> 4[0] [send] via "
    "NET/IB/1(2)/GDRDMA/Shared\n"
    "MOC-R4PCC04U37:574629:574668 [0] NCCL INFO Channel 01/1 : 7[3] -> 0[0] [receive] via "
    "NET/IB/1/GDRDMA/Shared\n"
    "MOC-R4PCC04U37:574629:574668 [0] NCCL INFO Channel 00/1 : 0[0] -> 1[1] via P2P/direct pointer\n";

TEST(NcclRanks, OneProcessDrivingFourGpusGivesOneRankPerDevice) {
  NcclRanks ranks = ranksOf(kOneProcessFourGpus);
  ASSERT_EQ(ranks.ranks.size(), 3u);  // [0], [2], [3]: rank 1 prints no line here
  EXPECT_EQ(ranks.not_kept, 0u);
  EXPECT_EQ(ranks.ranks[0].rank, 0u);  // sorted by rank
  EXPECT_EQ(ranks.ranks[1].rank, 2u);
  EXPECT_EQ(ranks.ranks[2].rank, 3u);

  const NcclRank* r0 = rank(ranks, 0);
  ASSERT_NE(r0, nullptr);
  EXPECT_EQ(r0->host, "MOC-R4PCC04U37");
  EXPECT_EQ(r0->pid, 574629u);
  EXPECT_EQ(r0->dev, 0u);
  EXPECT_EQ(r0->cuda_dev, 0u);
  EXPECT_EQ(r0->bus_id, "6000");
  EXPECT_EQ(r0->nranks, 8u);
  EXPECT_EQ(r0->network, "IB");
  EXPECT_EQ(r0->net_plugin, "internal");
  EXPECT_EQ(r0->transport, "NET/IB");
  EXPECT_THAT(r0->nics, ElementsAre("mlx5_5:1/RoCE"));  // not the OOB interface
  EXPECT_THAT(r0->net_devices, ElementsAre(1u));
  EXPECT_EQ(r0->gdr, std::optional<bool>(true));
  EXPECT_EQ(r0->net_channels, 1u);
  EXPECT_EQ(r0->p2p_channels, 1u);
  EXPECT_EQ(r0->line, 1u);

  // Rank 2 only talks P2P: no NET transport and GDR unknown, but it shares
  // its process' NICs and plugin.
  const NcclRank* r2 = rank(ranks, 2);
  ASSERT_NE(r2, nullptr);
  EXPECT_EQ(r2->bus_id, "a6000");
  EXPECT_EQ(r2->transport, "");
  EXPECT_EQ(r2->p2p_channels, 2u);
  EXPECT_EQ(r2->net_channels, 0u);
  EXPECT_FALSE(r2->gdr.has_value());
  EXPECT_THAT(r2->nics, ElementsAre("mlx5_5:1/RoCE"));
  EXPECT_EQ(r2->network, "IB");

  const NcclRank* r3 = rank(ranks, 3);
  ASSERT_NE(r3, nullptr);
  EXPECT_EQ(r3->net_channels, 2u);  // NET/IB/1(2): device 1, proxied by rank 2
  EXPECT_THAT(r3->net_devices, ElementsAre(1u));
  EXPECT_EQ(r3->gdr, std::optional<bool>(true));
}

// https://github.com/NVIDIA/nccl/issues/1232: sockets between two nodes,
// SHM inside one, mpirun's "[N] " tag in front.
TEST(NcclRanks, SocketChannelsMeanNoGdrAndNameTheRankFromTheirPrintingSide) {
  NcclRanks ranks = ranksOf(
      "[0] node0:13571:13571 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/Socket/0\n"
      "[0] node0:13571:13571 [0] NCCL INFO Channel 01/0 : 0[0] -> 1[0] [send] via NET/Socket/0\n"
      "[1] node2:22555:22555 [0] NCCL INFO Channel 00/0 : 2[1] -> 1[0] [receive] via NET/Socket/0\n"
      "[1] node2:22555:22555 [0] NCCL INFO Channel 01/0 : 2[1] -> 1[0] [receive] via NET/Socket/0\n"
      "[2] node0:13572:13572 [1] NCCL INFO Channel 00 : 2[1] -> 0[0] via SHM/direct/direct\n"
      "[2] node0:13572:13572 [1] NCCL INFO Channel 01 : 2[1] -> 0[0] via SHM/direct/direct\n");
  ASSERT_EQ(ranks.ranks.size(), 3u);
  const NcclRank* r1 = rank(ranks, 1);  // named by the receiving side
  ASSERT_NE(r1, nullptr);
  EXPECT_EQ(r1->host, "node2");
  EXPECT_EQ(r1->transport, "NET/Socket");
  EXPECT_EQ(r1->gdr, std::optional<bool>(false));
  EXPECT_THAT(r1->net_devices, ElementsAre(0u));
  const NcclRank* r2 = rank(ranks, 2);
  ASSERT_NE(r2, nullptr);
  EXPECT_EQ(r2->host, "node0");
  EXPECT_EQ(r2->pid, 13572u);
  EXPECT_EQ(r2->shm_channels, 2u);
  EXPECT_EQ(r2->transport, "");
  EXPECT_FALSE(r2->gdr.has_value());
  EXPECT_EQ(rank(ranks, 0)->net_channels, 2u);
}

// https://github.com/NVIDIA/nccl/issues/290 (../shared/data/nccl-logs/017.log):
// NCCL 2.4 prints bus ids in the pairs and no init line.
TEST(NcclRanks, OldRingLinesGiveRankAndBusId) {
  NcclRanks ranks = ranksOf(
      "gpu2-ru7:2144:2556 [2] NCCL INFO Ring 00 : 2[3d000] -> 3[3e000] via direct shared memory\n"
      "gpu2-ru7:2143:2561 [1] NCCL INFO Ring 00 : 1[1b000] -> 2[3d000] via direct shared memory\n");
  ASSERT_EQ(ranks.ranks.size(), 2u);
  EXPECT_EQ(ranks.ranks[0].rank, 1u);
  EXPECT_EQ(ranks.ranks[0].bus_id, "1b000");
  EXPECT_EQ(ranks.ranks[1].rank, 2u);
  EXPECT_EQ(ranks.ranks[1].bus_id, "3d000");
  EXPECT_EQ(ranks.ranks[1].shm_channels, 1u);
}

// https://github.com/NVIDIA/nccl/issues/1537 (../shared/data/nccl-logs/038.log):
// no channel line, but NCCL says GPUDirect RDMA is off for this rank's HCAs.
TEST(NcclRanks, GdrDisabledLineMakesGdrFalse) {
  NcclRanks ranks = ranksOf(
      "hostname1:25668:27396 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE [RO]; OOB "
      "primaryip:10.10.10.10<0>\n"
      "hostname1:25668:27396 [0] NCCL INFO Using network IB\n"
      "hostname1:25668:27396 [0] NCCL INFO comm 0x55cc8aa86c70 rank 0 nranks 16 cudaDev 0 nvmlDev 0 busId "
      "1c000 commId 0x65e0bd6ee7449db4 - Init START\n"
      "hostname1:25668:27396 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'\n");
  ASSERT_EQ(ranks.ranks.size(), 1u);
  EXPECT_EQ(ranks.ranks[0].gdr, std::optional<bool>(false));
  EXPECT_THAT(ranks.ranks[0].nics, ElementsAre("mlx5_0:1/RoCE", "mlx5_1:1/RoCE"));
  EXPECT_EQ(ranks.ranks[0].bus_id, "1c000");
  EXPECT_EQ(ranks.ranks[0].transport, "");
}

// https://github.com/NVIDIA/nccl/issues/1814: a plugin's net name (IBext_v8).
TEST(NcclRanks, PluginNetNameIsTheTransport) {
  NcclRanks ranks = ranksOf(
      "hostname-test:987:1260 [7] NCCL INFO Channel 03/0 : 47[7] -> 39[7] [receive] via NET/IBext_v8/2\n"
      "hostname-test:986:1254 [6] NCCL INFO Channel 00/0 : 6[6] -> 38[6] [receive] via NET/IBext_v8/1\n");
  ASSERT_EQ(ranks.ranks.size(), 2u);
  EXPECT_EQ(ranks.ranks[0].rank, 38u);
  EXPECT_EQ(ranks.ranks[0].transport, "NET/IBext_v8");
  EXPECT_THAT(ranks.ranks[0].net_devices, ElementsAre(1u));
  EXPECT_EQ(ranks.ranks[0].gdr, std::optional<bool>(false));
  EXPECT_EQ(ranks.ranks[1].rank, 39u);
}

// A rank whose channels use two networks shows both, each once.
TEST(NcclRanks, ARankOnTwoNetworksShowsBoth) {
  NcclRanks ranks = ranksOf(
      "node0:13571:13571 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/IB/0/GDRDMA\n"
      "node0:13571:13571 [0] NCCL INFO Channel 01/0 : 0[0] -> 1[0] [send] via NET/Socket/0\n"
      "node0:13571:13571 [0] NCCL INFO Channel 02/0 : 0[0] -> 1[0] [send] via NET/IB/0/GDRDMA\n"
      "node0:13571:13571 [0] NCCL INFO Channel 03/0 : 0[0] -> 1[0] [send] via NET/Socket/0\n");
  ASSERT_EQ(ranks.ranks.size(), 1u);
  EXPECT_EQ(ranks.ranks[0].transport, "NET/IB+NET/Socket");
  EXPECT_EQ(ranks.ranks[0].net_channels, 4u);
  EXPECT_EQ(ranks.ranks[0].gdr, std::optional<bool>(true));  // some channels did use it
}

// The HCA lists of ../shared/data/nccl-logs/038.log and 036.log: processes
// that print one list with their own OOB address share it, a process with
// another list keeps its own, and a list seen before comes back unchanged
// after another (the analyser does not parse a list it parsed lately).
TEST(NcclRanks, ProcessesSharingAnHcaListEachGetIt) {
  NcclLogAnalyzer a("t.log");
  testutil::feedText(
      a,
      "h1:100:101 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE [RO]; OOB "
      "primaryip:10.10.10.10<0>\n"
      "h2:200:201 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE [RO]; OOB "
      "primaryip:10.10.10.11<0>\n"
      "h3:300:301 [0] NCCL INFO NET/IB : Using [0]mlx5_5:1/RoCE [RO]; OOB eno7np0:169.254.103.56<0>\n"
      "h4:400:401 [1] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE [RO]; OOB "
      "primaryip:10.10.10.12<0>\n"
      "h4:400:401 [1] NCCL INFO NET/IB : Using [0]mlx5_9:1/IB [RO]; OOB ib0:10.0.0.1<0>\n");
  NcclLogFacts facts = a.facts();
  EXPECT_THAT(facts.hcas, ElementsAre("mlx5_0:1/RoCE", "mlx5_1:1/RoCE", "mlx5_5:1/RoCE", "mlx5_9:1/IB"));
  ASSERT_EQ(facts.per_rank.ranks.size(), 4u);
  std::vector<std::vector<std::string>> nics;
  for (const auto& r : facts.per_rank.ranks) nics.push_back(r.nics);
  // Without a rank number they come in first-seen order; h4 keeps its first list.
  EXPECT_THAT(nics, ElementsAre(ElementsAre("mlx5_0:1/RoCE", "mlx5_1:1/RoCE"),
                                ElementsAre("mlx5_0:1/RoCE", "mlx5_1:1/RoCE"), ElementsAre("mlx5_5:1/RoCE"),
                                ElementsAre("mlx5_0:1/RoCE", "mlx5_1:1/RoCE")));
}

// Runs of one transport (the usual case) and a transport name too long to
// be remembered as the rank's latest: the same list as line by line.
TEST(NcclRanks, RunsOfOneTransportCountOnce) {
  NcclRanks ranks = ranksOf(
      "n:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/IB/0\n"
      "n:1:1 [0] NCCL INFO Channel 01/0 : 0[0] -> 1[0] [send] via NET/IB/1\n"
      "n:1:1 [0] NCCL INFO Channel 02/0 : 0[0] -> 1[0] [send] via NET/AVeryLongNetPluginName/0\n"
      "n:1:1 [0] NCCL INFO Channel 03/0 : 0[0] -> 1[0] [send] via NET/AVeryLongNetPluginName/0\n"
      "n:1:1 [0] NCCL INFO Channel 04/0 : 0[0] -> 1[0] [send] via NET/IB/0\n"
      "n:1:1 [0] NCCL INFO Channel 05/0 : 0[0] -> 1[0] [send] via NET/Socket/0\n"
      "n:1:1 [0] NCCL INFO Channel 06/0 : 0[0] -> 1[0] [send] via NET/Socket/0\n");
  ASSERT_EQ(ranks.ranks.size(), 1u);
  EXPECT_EQ(ranks.ranks[0].transport, "NET/IB+NET/AVeryLongNetPluginName+NET/Socket");
  EXPECT_EQ(ranks.ranks[0].net_channels, 7u);
  EXPECT_THAT(ranks.ranks[0].net_devices, ElementsAre(0u, 1u));
  EXPECT_EQ(ranks.ranks[0].rank, 0u);  // named by the sending side of its first line
}

// PyTorch subgroups: a process joins several communicators; the largest
// gives its rank in the whole job, whichever comes first.
TEST(NcclRanks, TheLargestCommunicatorNamesTheRank) {
  const std::string sub =
      "h:1:1 [0] NCCL INFO comm 0x1 rank 3 nranks 4 cudaDev 3 busId 3b000 - Init COMPLETE\n";
  const std::string world =
      "h:1:1 [0] NCCL INFO comm 0x2 rank 11 nranks 16 cudaDev 3 busId 3b000 - Init COMPLETE\n";
  for (const auto& text : {sub + world, world + sub}) {
    NcclRanks ranks = ranksOf(text);
    ASSERT_EQ(ranks.ranks.size(), 1u);
    EXPECT_EQ(ranks.ranks[0].rank, 11u);
    EXPECT_EQ(ranks.ranks[0].nranks, 16u);
  }
}

TEST(NcclRanks, LinesWithoutHeaderAddNoRank) {
  NcclRanks ranks =
      ranksOf("NCCL INFO NET/Socket : Using [0]bond0:200.1.93.2<0>\nNCCL INFO Using network Socket\n");
  EXPECT_TRUE(ranks.ranks.empty());
}

// Memory stays bounded: past kMaxRanksKept headers the rest are counted.
TEST(NcclRanks, CappedAndCounted) {
  std::string text;
  const size_t n = kMaxRanksKept + 100;
  for (size_t i = 0; i < n; ++i)
    text += "host" + std::to_string(i / 8) + ":" + std::to_string(1000 + i) + ":1 [" + std::to_string(i % 8) +
            "] NCCL INFO comm 0x1 rank " + std::to_string(i) + " nranks " + std::to_string(n) +
            " cudaDev 0 busId 1000\n";
  NcclRanks ranks = ranksOf(text);
  EXPECT_EQ(ranks.ranks.size(), kMaxRanksKept);
  EXPECT_EQ(ranks.not_kept, 100u);
  auto j = ranksToJson(ranks);
  EXPECT_EQ(j["per_rank"].size(), kMaxRanksKept);
  EXPECT_EQ(j["per_rank_not_kept"], 100);
}

// One file per rank: the job holds every input's ranks, in rank order.
TEST(NcclRanks, JobMergesTheInputsRanks) {
  NcclLogAnalyzer a("a.log"), b("b.log");
  testutil::feedText(
      a, "node2:22555:22555 [0] NCCL INFO Channel 00/0 : 2[1] -> 1[0] [receive] via NET/Socket/0\n");
  testutil::feedText(b,
                     "node0:13571:13571 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/Socket/0\n");
  auto job = combineJob({&a, &b});
  ASSERT_EQ(job.facts["per_rank"].size(), 2u);
  EXPECT_EQ(job.facts["per_rank"][0]["rank"], 0);
  EXPECT_EQ(job.facts["per_rank"][0]["host"], "node0");
  EXPECT_EQ(job.facts["per_rank"][1]["rank"], 1);
  EXPECT_EQ(job.facts["per_rank"][1]["channels"]["NET"], 1);
  EXPECT_EQ(job.facts["per_rank_not_kept"], 0);
}

// The real EFA job in ../shared: every rank with a NET channel used the
// aws-ofi-nccl network with GPUDirect RDMA, ranks on both hosts.
TEST(NcclRanks, SharedEfaLogPerRank) {
  RAILKIT_REQUIRE_SHARED();
  auto path = railkit::testing::sharedDir() / "data" / "nccl-logs" / "035.log";
  NcclRanks ranks = ranksOf(testutil::readFile(path.string()));
  ASSERT_GE(ranks.ranks.size(), 8u);
  size_t net = 0;
  std::set<std::string> hosts;
  for (const auto& r : ranks.ranks) {
    hosts.insert(r.host);
    if (r.net_channels == 0) continue;
    ++net;
    EXPECT_EQ(r.transport, "NET/AWS Libfabric");
    EXPECT_EQ(r.gdr, std::optional<bool>(true));
  }
  EXPECT_GE(net, 4u);
  EXPECT_EQ(hosts.size(), 2u);
  const NcclRank* r10 = rank(ranks, 10);
  ASSERT_NE(r10, nullptr);
  EXPECT_EQ(r10->cuda_dev, 2u);
  EXPECT_EQ(r10->nranks, 16u);
  EXPECT_EQ(r10->bus_id, "201c0");
}

}  // namespace
}  // namespace railkit::logs
