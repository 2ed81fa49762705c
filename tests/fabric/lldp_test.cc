// lldpctl's JSON (both forms), real captures, clear errors for what is not
// lldpctl's output, and the Ethernet fabric the captures of every node make:
// the rail checks name a cable moved to another rail's leaf by its port name.
#include "fabric/lldp.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "fabric/report.h"

namespace railkit::fabric {
namespace {

const std::string kFixtures = std::string(RAILKIT_SOURCE_DIR) + "/tests/fixtures/fabric/lldp/";

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

LldpCapture parsed(const std::string& file, const std::string& host = "node") {
  auto capture = parseLldpctlJson(slurp(kFixtures + file), file, host);
  EXPECT_TRUE(capture) << capture.error().message;
  return capture ? *capture : LldpCapture{};
}

std::string error(const std::string& text) {
  auto capture = parseLldpctlJson(text, "n1.json", "n1");
  return capture ? "parsed" : capture.error().message;
}

TEST(LldpCapture, RealSingleInterfaceWithABareChassis) {
  auto c = parsed("puppet-lldpd-129.json");
  ASSERT_EQ(c.neighbors.size(), 1u);
  const auto& n = c.neighbors[0];
  EXPECT_EQ(n.interface, "enp3s0");
  EXPECT_EQ(n.chassis_name, "");
  EXPECT_EQ(n.chassis_id, "mac 44:94:fc:9d:55:0a");
  EXPECT_EQ(n.port_id, "g17");
  EXPECT_EQ(n.port_id_type, "local");
  EXPECT_EQ(n.port_name, "g17");
  EXPECT_EQ(n.path, "lldp.interface.enp3s0");
}

TEST(LldpCapture, JsonAndJson0OfTwoInterfacesReadTheSame) {
  auto json = parsed("lldpd-1.0.16-two-leaves.json");
  auto json0 = parsed("lldpd-1.0.16-two-leaves.json0");
  ASSERT_EQ(json.neighbors.size(), 2u);
  ASSERT_EQ(json0.neighbors.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    const auto& a = json.neighbors[i];
    const auto& b = json0.neighbors[i];
    EXPECT_EQ(a.interface, "eth" + std::to_string(i));
    EXPECT_EQ(a.chassis_name, "leaf-r" + std::to_string(i));
    EXPECT_EQ(a.port_id, "swp1");
    EXPECT_EQ(a.port_id_type, "ifname");
    EXPECT_EQ(std::tie(a.interface, a.chassis_name, a.chassis_id, a.port_id, a.port_id_type, a.port_name),
              std::tie(b.interface, b.chassis_name, b.chassis_id, b.port_id, b.port_id_type, b.port_name));
  }
  EXPECT_EQ(json.neighbors[1].path, "lldp.interface[1].eth1");
  EXPECT_EQ(json0.neighbors[1].path, "lldp[0].interface[1]");
}

TEST(LldpCapture, LinuxLldpdSendsTheMacAsPortIdAndTheNameAsDescription) {
  auto c = parsed("lldpd-1.0.16-mac-port-id.json");
  ASSERT_EQ(c.neighbors.size(), 1u);
  EXPECT_EQ(c.neighbors[0].chassis_name, "leaf-r3");
  EXPECT_EQ(c.neighbors[0].port_id_type, "mac");
  EXPECT_EQ(c.neighbors[0].port_name, "swp7");
}

TEST(LldpCapture, NoNeighbourIsAnEmptyCapture) {
  EXPECT_EQ(error("{\"lldp\": {}}"), "parsed");
  EXPECT_EQ(error("{\"lldp\": [{\"interface\": []}]}"), "parsed");
  EXPECT_EQ(error("{\"lldp\": {\"interface\": []}}"), "parsed");
}

TEST(LldpCapture, WhatIsNotLldpctlOutputIsOneClearError) {
  EXPECT_NE(error("Interface: eth0, via: LLDP").find("n1.json: expected lldpctl's JSON"), std::string::npos);
  EXPECT_NE(error(std::string("\x00\x01\xff{", 4)).find("not JSON"), std::string::npos);
  EXPECT_NE(error("{\"lldp\": {\"interface\": {\"eth0\": {\"via\"").find("not JSON"), std::string::npos);
  EXPECT_EQ(error("{\"neighbors\": []}"),
            "n1.json: expected an object with \"lldp\" (lldpctl -f json), found an object");
  EXPECT_EQ(error("[1, 2]"), "n1.json: expected an object with \"lldp\" (lldpctl -f json), found a list");
  EXPECT_EQ(error("{\"lldp\": 3}"),
            "n1.json: lldp: expected an object (json) or a list (json0), found a number");
  EXPECT_EQ(error("{\"lldp\": {\"interface\": \"eth0\"}}"),
            "n1.json: lldp.interface: expected an object or a list, found a string");
  EXPECT_EQ(error("{\"lldp\": {\"interface\": [{\"eth0\": 7}]}}"),
            "n1.json: lldp.interface[0].eth0: expected an object, found a number");
  EXPECT_EQ(error("{\"lldp\": {\"interface\": {\"eth0\": {\"chassis\": {\"leaf\": {}}}}}}"),
            "n1.json: lldp.interface.eth0: expected the neighbour's \"port\", found none");
  EXPECT_EQ(error("{\"lldp\": {\"interface\": {\"eth0\": {\"port\": {\"id\": {\"value\": \"p1\"}}}}}}"),
            "n1.json: lldp.interface.eth0: expected the neighbour's \"chassis\", found none");
  EXPECT_EQ(error("{\"lldp\": {\"interface\": {\"eth0\": {\"chassis\": {\"leaf\": {}}, \"port\": {}}}}}"),
            "n1.json: lldp.interface.eth0.port.id: expected the switch's port id, found none");
  EXPECT_EQ(error("{\"lldp\": {\"interface\": {\"eth0\": {\"chassis\": {}, \"port\": {\"id\": \"p\"}}}}}"),
            "n1.json: lldp.interface.eth0.chassis: expected a system name or an id, found neither");
}

// `nodes` nodes, eth0 on leaf-r0 and eth1 on leaf-r1, port swp<n>; and a
// management interface eth9 on mgmt-sw.
std::vector<LldpCapture> railCaptures(int nodes) {
  std::vector<LldpCapture> out;
  for (int n = 1; n <= nodes; ++n) {
    LldpCapture c{"node0" + std::to_string(n) + ".json", "node0" + std::to_string(n), {}};
    for (int r = 0; r < 2; ++r)
      c.neighbors.push_back({"eth" + std::to_string(r), "leaf-r" + std::to_string(r),
                             "mac 0c:00:00:00:00:0" + std::to_string(r), "swp" + std::to_string(n), "ifname",
                             "", "swp" + std::to_string(n), "", ""});
    c.neighbors.push_back({"eth9", "mgmt-sw", "mac 0c:00:00:00:00:09", "Gi0/" + std::to_string(n), "ifname",
                           "", "Gi0/" + std::to_string(n), "", ""});
    out.push_back(std::move(c));
  }
  return out;
}

TEST(LldpFabric, HealthyRailsHaveNoFinding) {
  const std::vector<std::string> rails = {"eth0", "eth1"};
  auto fabric = lldpFabric(railCaptures(8), rails);
  auto report = analyseFabric(fabric, {}, {}, nullptr, nullptr, &rails);
  EXPECT_EQ(report.leaves, 2);  // the management switch is left out with eth9
  EXPECT_EQ(report.hosts, 8);
  EXPECT_EQ(report.rails, 2);
  EXPECT_TRUE(report.findings.empty()) << renderFabricText(report);
  ASSERT_EQ(report.tier_rows.size(), 1u);
  EXPECT_EQ(report.tier_rows[0].groups.size(), 1u);
}

TEST(LldpFabric, ACableOnAnotherRailsLeafIsNamedByItsPort) {
  auto captures = railCaptures(8);
  captures[2].neighbors[1] = {"eth1", "leaf-r0", "mac 0c:00:00:00:00:00", "swp20", "ifname", "", "swp20",
                              "",     ""};
  const std::vector<std::string> rails = {"eth0", "eth1"};
  auto fabric = lldpFabric(captures, rails);
  auto report = analyseFabric(fabric, {}, {}, nullptr, nullptr, &rails);
  ASSERT_EQ(report.findings.size(), 1u) << renderFabricText(report);
  const auto& f = report.findings[0];
  EXPECT_EQ(f.id, "rail-miscabled");
  EXPECT_EQ(f.subject, "node03 eth1");
  EXPECT_NE(f.message.find("node03 eth1 (rail 1) is on leaf-r0 port swp20"), std::string::npos) << f.message;
  EXPECT_NE(f.message.find("the 7 other nodes' rail 1 are on leaf-r1"), std::string::npos) << f.message;
  ASSERT_FALSE(f.evidence.empty());
  EXPECT_EQ(f.evidence[0].source, "node03.json");
  EXPECT_FALSE(f.evidence[0].line.has_value());
}

TEST(LldpFabric, RailsDefaultToEveryInterfaceInNaturalOrder) {
  std::vector<LldpCapture> captures{{"a", "n1", {}}};
  for (const char* name : {"eth10", "eth2", "eth1"})
    captures[0].neighbors.push_back(
        {name, "sw", "mac 1", std::string("p") + name, "ifname", "", "p", "", ""});
  EXPECT_EQ(lldpInterfaces(captures), (std::vector<std::string>{"eth1", "eth2", "eth10"}));
}

TEST(LldpFile, HostComesFromTheFileNameOrHostEqualsFile) {
  auto by_name = readLldpFile(kFixtures + "puppet-lldpd-129.json");
  ASSERT_TRUE(by_name) << by_name.error().message;
  EXPECT_EQ(by_name->host, "puppet-lldpd-129");
  auto given = readLldpFile("gpu07=" + kFixtures + "puppet-lldpd-129.json");
  ASSERT_TRUE(given) << given.error().message;
  EXPECT_EQ(given->host, "gpu07");
  auto missing = readLldpFile("gpu07=/nonexistent/x.json");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("/nonexistent/x.json"), std::string::npos);
}

}  // namespace
}  // namespace railkit::fabric
