// The RoCE multi-rail / lossless rules and ib-ipoib-missing on hand-built
// inventories: each fires on its problem, stays silent on the fixed setup,
// and says nothing when the state it needs is unknown (never a false alarm).
#include <gtest/gtest.h>

#include "doctor/rule.h"

using railkit::Finding;
using railkit::Severity;
using railkit::doctor::DoctorInput;
namespace model = railkit::model;

namespace {

// Two (or more) single-port RoCE NICs, rail i = eth<i+1> with 10.0.0.<i+1>/24.
model::Inventory rails(int count = 2, const std::string& prefix = "/24") {
  model::Inventory inv;
  inv.routing.rules = std::vector<model::RoutingRule>{{0, "", "", "", "", std::nullopt, "local"},
                                                      {32766, "", "", "", "", std::nullopt, "main"},
                                                      {32767, "", "", "", "", std::nullopt, "default"}};
  inv.routing.routes = std::vector<model::Route>{{"main", "unicast", "10.0.0.0/24", "eth1", "10.0.0.1", ""}};
  for (int i = 0; i < count; ++i) {
    std::string netdev = "eth" + std::to_string(i + 1);
    model::RdmaDevice d;
    d.name = "mlx5_" + std::to_string(i);
    model::RdmaPort p;
    p.port = 1;
    p.state = "ACTIVE";
    p.phys_state = "LinkUp";
    p.link_layer = "Ethernet";
    p.netdev = netdev;
    d.ports.push_back(p);
    inv.rdma_devices.push_back(d);
    model::NetInterface n;
    n.name = netdev;
    n.type = "ether";
    n.addresses = {"10.0.0." + std::to_string(i + 1) + prefix, "fe80::1/64"};
    n.addresses_known = true;
    inv.interfaces.push_back(n);
  }
  return inv;
}

void addPolicyRouting(model::Inventory& inv, uint32_t priority = 100) {
  for (int i = 0; i < 2; ++i) {
    std::string ip = "10.0.0." + std::to_string(i + 1), table = std::to_string(101 + i);
    inv.routing.rules->push_back({priority + i, ip + "/32", "", "", "", std::nullopt, table});
    inv.routing.routes->push_back({table, "unicast", "10.0.0.0/24", "eth" + std::to_string(i + 1), ip, ""});
  }
}

std::vector<Finding> run(const char* id, const model::Inventory& inv) {
  const auto* rule = railkit::doctor::findRule(id);
  EXPECT_NE(rule, nullptr) << id;
  return rule ? rule->check(DoctorInput{inv}) : std::vector<Finding>{};
}

std::vector<std::string> subjects(const std::vector<Finding>& found) {
  std::vector<std::string> out;
  for (const auto& f : found) out.push_back(f.subject);
  return out;
}

using Names = std::vector<std::string>;

TEST(PolicyRouting, FiresPerRailWithoutRules) {
  auto found = run("roce-multirail-no-policy-routing", rails());
  ASSERT_EQ(subjects(found), (Names{"eth1", "eth2"}));
  EXPECT_EQ(found[1].severity, Severity::kError);
  EXPECT_NE(found[1].message.find("leaves through eth1"), std::string::npos) << found[1].message;
  EXPECT_NE(found[1].fix.find("ip rule add from 10.0.0.2/32"), std::string::npos) << found[1].fix;
}

TEST(PolicyRouting, SilentWithPerSourceTables) {
  auto inv = rails();
  addPolicyRouting(inv);
  EXPECT_TRUE(run("roce-multirail-no-policy-routing", inv).empty());
}

TEST(PolicyRouting, RulesThatCannotWork) {
  auto late = rails();
  addPolicyRouting(late, 40000);  // after the main lookup: never reached
  EXPECT_EQ(subjects(run("roce-multirail-no-policy-routing", late)), (Names{"eth1", "eth2"}));
  auto shared = rails();  // one table for the whole subnet selects no rail
  shared.routing.rules->push_back({100, "10.0.0.0/24", "", "", "", std::nullopt, "101"});
  shared.routing.routes->push_back({"101", "unicast", "10.0.0.0/24", "eth1", "", ""});
  EXPECT_EQ(subjects(run("roce-multirail-no-policy-routing", shared)), (Names{"eth1", "eth2"}));
  auto no_route = rails();  // a rule whose table has no route out of the rail
  no_route.routing.rules->push_back({100, "10.0.0.2/32", "", "", "", std::nullopt, "102"});
  EXPECT_EQ(subjects(run("roce-multirail-no-policy-routing", no_route)), (Names{"eth1", "eth2"}));
}

TEST(PolicyRouting, SilentWhenUnknownOrNotShared) {
  auto unknown = rails();
  unknown.routing.rules.reset();
  EXPECT_TRUE(run("roce-multirail-no-policy-routing", unknown).empty());
  auto no_addresses = rails();
  for (auto& n : no_addresses.interfaces) n.addresses_known = false, n.addresses.clear();
  EXPECT_TRUE(run("roce-multirail-no-policy-routing", no_addresses).empty());
  auto own_subnets = rails(2, "/32");  // /32s share nothing
  EXPECT_TRUE(run("roce-multirail-no-policy-routing", own_subnets).empty());
  auto one = rails(1);
  EXPECT_TRUE(run("roce-multirail-no-policy-routing", one).empty());
  auto down = rails();
  down.rdma_devices[1].ports[0].state = "DOWN";
  EXPECT_TRUE(run("roce-multirail-no-policy-routing", down).empty());
}

// Addresses that are not IPv4 with a prefix, or malformed, never group rails.
TEST(PolicyRouting, OddAddressesAreIgnored) {
  for (const char* odd : {"10.0.0.1.5/24", "10.0.0/24", "10.0.0.300/24", "10.0.0.1/33", "fe80::2/64", ""}) {
    auto inv = rails();
    inv.interfaces[1].addresses = {odd};
    EXPECT_TRUE(run("roce-multirail-no-policy-routing", inv).empty()) << odd;
  }
}

TEST(RpFilter, StrictOnAllOrInterface) {
  auto inv = rails();
  inv.routing.sysctls["all"] = {1, 0, 0};
  inv.routing.sysctls["eth1"] = {0, 0, 0};
  inv.routing.sysctls["eth2"] = {2, 0, 0};  // max(all=1, 2) = 2: loose
  auto found = run("roce-multirail-rp-filter", inv);
  ASSERT_EQ(subjects(found), (Names{"eth1"}));
  EXPECT_EQ(found[0].evidence.size(), 2u);
  EXPECT_NE(found[0].fix.find("sysctl -w net.ipv4.conf.eth1.rp_filter=2"), std::string::npos) << found[0].fix;
  inv.routing.sysctls["all"].rp_filter = 0;
  inv.routing.sysctls["eth1"].rp_filter = 2;
  EXPECT_TRUE(run("roce-multirail-rp-filter", inv).empty());
  inv.routing.sysctls.clear();  // unknown
  EXPECT_TRUE(run("roce-multirail-rp-filter", inv).empty());
}

TEST(Arp, ExpectsIgnore1Announce2) {
  auto inv = rails();
  inv.routing.sysctls["all"] = {0, 0, 2};
  inv.routing.sysctls["eth1"] = {0, 1, 0};  // announce 2 from all
  inv.routing.sysctls["eth2"] = {0, 0, 0};
  auto found = run("roce-multirail-arp", inv);
  ASSERT_EQ(subjects(found), (Names{"eth2"}));
  EXPECT_NE(found[0].message.find("arp_ignore=0"), std::string::npos);
  EXPECT_EQ(found[0].message.find("arp_announce"), std::string::npos) << found[0].message;
  inv.routing.sysctls["eth2"].arp_ignore = 2;
  EXPECT_TRUE(run("roce-multirail-arp", inv).empty());
  auto vlan = rails();  // a VLAN netdev: sysctl's slash form, since dots separate levels
  vlan.interfaces[1].name = vlan.rdma_devices[1].ports[0].netdev = "eth2.100";
  vlan.routing.sysctls["eth2.100"] = {0, 0, 0};
  auto v = run("roce-multirail-arp", vlan);
  ASSERT_EQ(subjects(v), (Names{"eth2.100"}));
  EXPECT_NE(v[0].fix.find("net/ipv4/conf/eth2.100/arp_ignore=1"), std::string::npos) << v[0].fix;
  inv.routing.sysctls.clear();
  EXPECT_TRUE(run("roce-multirail-arp", inv).empty());
}

TEST(Ecn, ChecksNcclPriority) {
  auto inv = rails();
  inv.interfaces[0].ecn_np = 0xff;
  inv.interfaces[0].ecn_rp = 0xfe;  // off on priority 0 only
  auto found = run("roce-ecn-disabled", inv);
  ASSERT_EQ(subjects(found), (Names{"eth1"}));
  EXPECT_EQ(found[0].evidence[0].source, "/sys/class/net/eth1/ecn/roce_rp/enable/0");
  inv.process.env["NCCL_IB_TC"] = "106";  // priority 3, which is on
  EXPECT_TRUE(run("roce-ecn-disabled", inv).empty());
  inv.interfaces[0].ecn_np = 0xf7;
  EXPECT_EQ(subjects(run("roce-ecn-disabled", inv)), (Names{"eth1"}));
  inv.interfaces[0].ecn_np.reset();  // unknown side: not judged
  EXPECT_TRUE(run("roce-ecn-disabled", inv).empty());
}

TEST(Pfc, DisabledEverywhereOnly) {
  auto inv = rails();
  EXPECT_TRUE(run("roce-pfc-disabled", inv).empty());  // unknown
  inv.pfc_enabled["eth1"] = 0;
  inv.pfc_enabled["eth2"] = 0x08;
  auto found = run("roce-pfc-disabled", inv);
  ASSERT_EQ(subjects(found), (Names{"eth1"}));
  EXPECT_EQ(found[0].evidence[0].text, "pfc-enabled none");
}

TEST(TrafficClass, MapsTcToPriority) {
  auto inv = rails();
  inv.pfc_enabled["eth1"] = 0x08;
  inv.pfc_enabled["eth2"] = 0x08;
  auto unset = run("nccl-ib-tc-not-lossless", inv);
  ASSERT_EQ(unset.size(), 1u);
  EXPECT_NE(unset[0].fix.find("NCCL_IB_TC=106"), std::string::npos) << unset[0].fix;
  inv.process.env["NCCL_IB_TC"] = "106";
  EXPECT_TRUE(run("nccl-ib-tc-not-lossless", inv).empty());
  inv.pfc_enabled["eth2"] = 0x10;  // eth2 protects priority 4 only
  auto found = run("nccl-ib-tc-not-lossless", inv);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].message.find("eth2"), std::string::npos);
  EXPECT_EQ(found[0].message.find("eth1"), std::string::npos) << found[0].message;
  EXPECT_NE(found[0].fix.find("NCCL_IB_TC=138"), std::string::npos) << found[0].fix;
  inv.pfc_enabled = {{"eth1", 0}, {"eth2", 0}};  // no PFC at all: roce-pfc-disabled's finding
  EXPECT_TRUE(run("nccl-ib-tc-not-lossless", inv).empty());
  inv.pfc_enabled.clear();
  EXPECT_TRUE(run("nccl-ib-tc-not-lossless", inv).empty());
}

model::Inventory ibNode() {
  model::Inventory inv;
  model::RdmaDevice d;
  d.name = "mlx5_0";
  d.ports.push_back({});
  auto& p = d.ports.back();
  p.port = 1;
  p.state = "ACTIVE";
  p.phys_state = "LinkUp";
  p.link_layer = "InfiniBand";
  inv.rdma_devices.push_back(d);
  inv.modules = {{"ib_core", true}, {"ib_ipoib", false}};
  return inv;
}

TEST(Ipoib, MissingModuleAndNetdev) {
  auto inv = ibNode();
  auto found = run("ib-ipoib-missing", inv);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].severity, Severity::kInfo);
  inv.process.env["NCCL_SOCKET_IFNAME"] = "ib0";
  EXPECT_EQ(run("ib-ipoib-missing", inv).at(0).severity, Severity::kError);
  inv.process.env["NCCL_SOCKET_IFNAME"] = "^ib,lo";  // excludes IB: no need
  EXPECT_EQ(run("ib-ipoib-missing", inv).at(0).severity, Severity::kInfo);
}

TEST(Ipoib, SilentWhenPresentOrUnknown) {
  auto loaded = ibNode();
  loaded.modules[1].loaded = true;
  EXPECT_TRUE(run("ib-ipoib-missing", loaded).empty());
  auto unknown = ibNode();  // /sys/module unreadable: ib_core not seen either
  unknown.modules[0].loaded = false;
  EXPECT_TRUE(run("ib-ipoib-missing", unknown).empty());
  auto netdev = ibNode();
  netdev.interfaces.push_back({});
  netdev.interfaces.back().name = "ib0";
  netdev.interfaces.back().type = "infiniband";
  EXPECT_TRUE(run("ib-ipoib-missing", netdev).empty());
  auto roce = rails();
  roce.modules = {{"ib_core", true}, {"ib_ipoib", false}};
  EXPECT_TRUE(run("ib-ipoib-missing", roce).empty());
}

}  // namespace
