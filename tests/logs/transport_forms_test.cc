// The inter-node transport from the forms `logs` used to miss (issue 30,
// point 9), on real lines (tests/fixtures/logs/transport, sources in its
// README): IPv4-mapped GIDs in each spelling NCCL printed, a plugin net
// that keeps its name beside its link layer, Google's TCPX plugin, and
// logs pasted without NCCL's header and `NCCL INFO` tag.
#include <gtest/gtest.h>

#include <regex>

#include "logs/input.h"
#include "logs/nccl/text.h"
#include "logs/report.h"
#include "nccl_log_test_util.h"
#include "support/test_support.h"

namespace railkit::logs {
namespace {

std::string transportFixture(const std::string& name) {
  auto path = railkit::testing::fixturesDir() / "logs" / "transport" / name;
  std::string text = testutil::readFile(path.string());
  EXPECT_FALSE(text.empty()) << path;
  return text;
}

NcclLogFacts factsOf(const std::string& name, const std::string& text) {
  auto r = analyzeText(name, text);
  EXPECT_TRUE(r.nccl.has_value()) << name;
  return r.nccl ? *r.nccl : NcclLogFacts{};
}

NcclLogFacts factsOf(const std::string& name) {
  return factsOf(name, transportFixture(name));
}

TEST(TransportForms, EverySpellingOfAnIpv4MappedGidIsSeen) {
  for (const char* name :
       {"localgid_title.log", "localgid_redacted.log", "local_gid_modify_qp.log", "ibext_v8_localgid.log"}) {
    std::string first_line = transportFixture(name);
    first_line.resize(first_line.find('\n'));
    EXPECT_TRUE(nccl::hasIpv4MappedGid(first_line)) << name;
  }
  // A link-local or global IPv6 GID is not IPv4-mapped, and ::ffff: elsewhere is no GID.
  EXPECT_FALSE(nccl::hasIpv4MappedGid("localGid fd00:1148:9000:5000:4:200:3:ff22 remoteGidsfd00:1148::ff1f"));
  EXPECT_FALSE(nccl::hasIpv4MappedGid("peer ::ffff:10.0.0.1<4000> closed"));
}

TEST(TransportForms, LocalGidSpellingsMakeTheTransportRoce) {
  for (const char* name : {"localgid_title.log", "localgid_redacted.log", "local_gid_modify_qp.log"}) {
    auto f = factsOf(name);
    EXPECT_EQ(f.inter_node_transport, "RoCE") << name;
    EXPECT_EQ(f.link_layer, "Ethernet") << name;
  }
}

TEST(TransportForms, PluginNetKeepsItsNameAndShowsItsLinkLayer) {
  auto gid = factsOf("ibext_v8_localgid.log");
  EXPECT_EQ(gid.inter_node_transport, "IBext_v8");
  EXPECT_EQ(gid.link_layer, "Ethernet");  // from localGid ::ffff: alone
  auto irdma = factsOf("ibext_v8_irdma_roce.log");
  EXPECT_EQ(irdma.inter_node_transport, "IBext_v8");
  EXPECT_EQ(irdma.link_layer, "Ethernet");  // from the /RoCE HCAs
  auto json = factsToJson(irdma);
  EXPECT_EQ(json["inter_node_transport"], "IBext_v8");
  EXPECT_EQ(json["link_layer"], "Ethernet");
  std::vector<InputReport> inputs;
  inputs.push_back(analyzeText("ibext_v8_irdma_roce.log", transportFixture("ibext_v8_irdma_roce.log")));
  auto report = combineInputs(std::move(inputs));
  EXPECT_EQ(report.job.facts["link_layer"], "Ethernet");
  auto text = renderText(report);
  EXPECT_NE(text.find("inter-node transport IBext_v8 (link layer Ethernet)"), std::string::npos) << text;
}

TEST(TransportForms, GpuDirectTcpxPluginIsTcpx) {
  auto warns = factsOf("tcpx_rx_ctrl_timeout.log");
  EXPECT_EQ(warns.inter_node_transport, "TCPX");
  EXPECT_EQ(warns.link_layer, "");
  EXPECT_FALSE(warns.gdr.has_value());  // no GPUDirect RDMA question to ask of TCPX
  EXPECT_EQ(factsOf("tcpx_enabled.log").inter_node_transport, "TCPX");
  // FastSocket, Google's older plugin, moves data over plain TCP sockets.
  auto fastsocket = factsOf("fastsocket_not_tcpx.log");
  EXPECT_NE(fastsocket.inter_node_transport, "TCPX");
  EXPECT_NE(fastsocket.inter_node_transport, "TCPXO");
}

// A3 Mega's GPUDirect-TCPXO plugin announces itself as FasTrak.
TEST(TransportForms, FasTrakPluginIsTcpxo) {
  auto facts = factsOf("tcpxo_fastrak.log");
  EXPECT_EQ(facts.inter_node_transport, "TCPXO");
  EXPECT_FALSE(facts.gdr.has_value());
}

TEST(TransportForms, PluginNamesMapToTcpxOrTcpxo) {
  EXPECT_EQ(nccl::tcpDirectKind("GPUDirectTCPX_v7"), "TCPX");
  EXPECT_EQ(nccl::tcpDirectKind("tcpxResult_t tcpxCommProgress(tcpxComm*):1231"), "TCPX");
  EXPECT_EQ(nccl::tcpDirectKind("FasTrak"), "TCPXO");
  EXPECT_EQ(nccl::tcpDirectKind("GPUDirectTCPXO"), "TCPXO");
  EXPECT_EQ(nccl::tcpDirectKind("IBext_v8"), "");
  EXPECT_EQ(nccl::tcpDirectKind("FastSocket"), "");  // Google's older TCP plugin is not GPUDirect
}

// A user pastes the bodies: each line of a real log without its
// `host:pid:tid [dev] NCCL INFO ` part. The transport, the HCAs and the
// connections must come out as from the log itself.
std::string pastedBodies(const std::string& log) {
  static const std::regex kHeaderAndTag(R"(^.*NCCL INFO )");
  std::string out;
  size_t start = 0;
  while (start < log.size()) {
    size_t end = log.find('\n', start);
    if (end == std::string::npos) end = log.size();
    out += std::regex_replace(log.substr(start, end - start), kHeaderAndTag, "") + "\n";
    start = end + 1;
  }
  return out;
}

TEST(TransportForms, LogPastedWithoutHeaderAndTagGivesTheSameTransport) {
  if (!railkit::testing::haveShared()) GTEST_SKIP() << "no ../shared/data";
  auto dir = railkit::testing::sharedDir() / "data" / "nccl-logs";
  for (const char* name : {"010.log", "036.log", "037.log", "038.log", "030.log"}) {
    std::string log = testutil::readFile((dir / name).string());
    ASSERT_FALSE(log.empty()) << name;
    std::string bodies = pastedBodies(log);
    ASSERT_EQ(bodies.find("NCCL INFO"), std::string::npos) << name;
    auto whole = factsOf(name, log);
    auto pasted = factsOf(std::string("pasted ") + name, bodies);
    EXPECT_EQ(pasted.inter_node_transport, whole.inter_node_transport) << name;
    EXPECT_EQ(pasted.link_layer, whole.link_layer) << name;
    EXPECT_EQ(pasted.hcas, whole.hcas) << name;
    EXPECT_EQ(pasted.transports, whole.transports) << name;
  }
}

TEST(TransportForms, BareBodiesNeedANetworkToBeTaken) {
  NcclLogAnalyzer a("bare");
  testutil::feedText(a,
                     "Channel 00/0 : 0[0] -> 8[0] [receive] via NET/IB/0/GDRDMA\n"
                     "NET/IB : Using [0]mlx5_0:1/IB/SHARP [1]mlx5_1:1/IB ; OOB ib0:10.0.0.1<0>\n");
  auto f = a.facts();
  EXPECT_EQ(f.inter_node_transport, "IB");
  EXPECT_EQ(f.hcas, (std::vector<std::string>{"mlx5_0:1/IB/SHARP", "mlx5_1:1/IB"}));
  EXPECT_TRUE(f.gdr.value_or(false));
  // Other programs' lines that merely mention NET/ are not NCCL's.
  NcclLogAnalyzer other("other");
  testutil::feedText(other, "GET /NET/status 200\nrouting via NET/core table\n");
  EXPECT_FALSE(other.sawNccl());
}

// NCCL's IB net prints a line per queue pair it connects: proof that it
// carried traffic, and its `LID n` or `GID n (...)` tells the link layer.
// Alone in a log, these used to leave the transport "none" or "unknown".
TEST(TransportForms, QueuePairLinesAreTheIbNet) {
  auto lid = factsOf("qp_lid_ib.log");
  EXPECT_EQ(lid.inter_node_transport, "IB");
  EXPECT_EQ(lid.link_layer, "InfiniBand");
  auto gid = factsOf("qp_gid_roce.log");
  EXPECT_EQ(gid.inter_node_transport, "RoCE");
  EXPECT_EQ(gid.link_layer, "Ethernet");
  auto ece = factsOf("qp_set_ece.log");
  EXPECT_EQ(ece.inter_node_transport, "IB");
  EXPECT_EQ(ece.link_layer, "");  // an ECE line does not say
  // The queue pairs of two hosts, RoCE on one and unsaid on the other: RoCE.
  auto both = factsOf("two hosts", transportFixture("qp_set_ece.log") + transportFixture("qp_gid_roce.log"));
  EXPECT_EQ(both.host_count, 2u);
  EXPECT_EQ(both.inter_node_transport, "RoCE");
  // A LID on one host, a GID on the other: as with mixed HCA lists, IB.
  auto mixed = factsOf("mixed", transportFixture("qp_lid_ib.log") + transportFixture("qp_gid_roce.log"));
  EXPECT_EQ(mixed.inter_node_transport, "IB");
  // NCCL 2.23+ on an InfiniBand port (the shape of its net_ib format: LID,
  // subnet prefix and FLID; no public log of it was found to copy).
  auto flid = factsOf("flid",
                      "h1:7:9 [0] NCCL INFO NET/IB: NCCL Dev 0 IbDev 0 Port 1 qpn 123 mtu 5 LID 1 "
                      "subnet-prefix 18338657682652659712  FLID 0 fifoRkey=0x1b9e9c fifoLkey=0x1b9e9c\n");
  EXPECT_EQ(flid.inter_node_transport, "IB");
  EXPECT_EQ(flid.link_layer, "InfiniBand");
  // Stronger evidence still decides: the channel lines name the net.
  auto channel =
      factsOf("channel", "h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/Socket/0\n" +
                             transportFixture("qp_gid_roce.log"));
  EXPECT_EQ(channel.inter_node_transport, "Socket");
}

}  // namespace
}  // namespace railkit::logs
