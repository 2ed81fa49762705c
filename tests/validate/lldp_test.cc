// validate's LLDP: what a rank reads and sends (node_lldp.h) and rank 0's
// strict reading of it.
#include <gtest/gtest.h>

#include <functional>

#include "validate/node_lldp.h"
#include "validate/node_report.h"
#include "validate/run.h"

namespace railkit::validate {
namespace {

const std::string kTwoLeaves =
    std::string(RAILKIT_SOURCE_DIR) + "/tests/fixtures/fabric/lldp/lldpd-1.0.16-two-leaves.json";

fabric::LldpNeighbor cabled(const std::string& interface, const std::string& device, const std::string& leaf,
                            int port) {
  fabric::LldpNeighbor n;
  n.interface = interface;
  n.device = device;
  n.chassis_name = leaf;
  n.chassis_id = "mac 0c:42:a1:00:00:0" + leaf.substr(leaf.size() - 1);
  n.port_id = "swp" + std::to_string(port);
  n.port_id_type = "ifname";
  n.port_descr = "veth";
  n.port_name = n.port_id;
  return n;
}

// Node i (0-based) of four: net1 (mlx5_0) on leaf-r0 port swp(i+1), net2
// (mlx5_1) on leaf-r1 port swp(i+1), unless `edit` recables it.
NodeInput railNode(int i) {
  NodeInput node;
  node.host = "node" + std::to_string(i + 1);
  node.lldp.command = "lldpctl -f json";
  node.lldp.read = true;
  node.lldp.neighbors = {cabled("net1", "mlx5_0", "leaf-r0", i + 1),
                         cabled("net2", "mlx5_1", "leaf-r1", i + 1)};
  return node;
}

TEST(ValidateLldp, NeighboursTravelInTheReportAndReadBackWhole) {
  NodeInput node = railNode(2);
  auto read = parseNodeReport(makeNodeReport(2, node, NodeCheck{}).dump(), 2);
  ASSERT_FALSE(read.contains("report_error")) << read["report_error"];
  auto lldp = lldpFromJson(read["lldp"], "lldp");
  ASSERT_TRUE(lldp) << lldp.error().message;
  EXPECT_TRUE(lldp->read);
  EXPECT_EQ(lldp->command, "lldpctl -f json");
  ASSERT_EQ(lldp->neighbors.size(), 2u);
  EXPECT_EQ(lldp->neighbors[1].device, "mlx5_1");
  EXPECT_EQ(lldp->neighbors[1].chassis_name, "leaf-r1");
  EXPECT_EQ(lldp->neighbors[1].port_name, "swp3");
  EXPECT_EQ(lldp->neighbors[1].path, "lldp.neighbors[1]");

  node.lldp = NodeLldp{"lldpctl -f json", false, {}, "lldpd is not running"};
  read = parseNodeReport(makeNodeReport(2, node, NodeCheck{}).dump(), 2);
  EXPECT_EQ(read["lldp"],
            (nlohmann::json{{"command", "lldpctl -f json"}, {"unavailable", "lldpd is not running"}}));
}

TEST(ValidateLldp, AReportWithoutLldpIsAcceptedAndABadOneNamesThePath) {
  auto good = makeNodeReport(2, railNode(1), NodeCheck{});
  auto older = good;
  older.erase("lldp");
  auto read = parseNodeReport(older.dump(), 2);
  EXPECT_FALSE(read.contains("report_error")) << read["report_error"];
  EXPECT_FALSE(read.contains("lldp"));

  auto with = [&](const std::function<void(nlohmann::json&)>& edit) {
    auto doc = good;
    edit(doc);
    return doc.dump();
  };
  const std::pair<std::string, std::string> cases[] = {
      {with([](auto& d) { d["lldp"] = "x"; }), "rank 2 report.lldp: expected an object, found string"},
      {with([](auto& d) { d["lldp"].erase("command"); }), "rank 2 report.lldp.command: missing"},
      {with([](auto& d) { d["lldp"]["unavailable"] = "why"; }),
       "rank 2 report.lldp: expected exactly one of neighbors and unavailable"},
      {with([](auto& d) { d["lldp"].erase("neighbors"); }),
       "rank 2 report.lldp: expected exactly one of neighbors and unavailable"},
      {with([](auto& d) { d["lldp"]["neighbors"] = nlohmann::json::object(); }),
       "rank 2 report.lldp.neighbors: expected an array, found object"},
      {with([](auto& d) { d["lldp"]["neighbors"][1] = 7; }),
       "rank 2 report.lldp.neighbors[1]: expected an object, found number"},
      {with([](auto& d) { d["lldp"]["neighbors"][1]["port_id"] = 12; }),
       "rank 2 report.lldp.neighbors[1].port_id: expected a string, found number"},
      {with([](auto& d) { d["lldp"]["neighbors"][0].erase("device"); }),
       "rank 2 report.lldp.neighbors[0].device: missing"},
      {with([](auto& d) { d["lldp"]["neighbors"][0]["interface"] = ""; }),
       "rank 2 report.lldp.neighbors[0].interface: empty"},
      {with([](auto& d) {
         d["lldp"]["neighbors"][0]["chassis_name"] = "";
         d["lldp"]["neighbors"][0]["chassis_id"] = "";
       }),
       "rank 2 report.lldp.neighbors[0]: neither chassis_name nor chassis_id"},
  };
  for (const auto& [blob, says] : cases) {
    auto bad = parseNodeReport(blob, 2);
    ASSERT_TRUE(bad.contains("report_error")) << blob;
    EXPECT_NE(bad["report_error"].get<std::string>().find(says), std::string::npos)
        << bad["report_error"] << " wanted " << says;
  }
}

TEST(ValidateLldp, EachInterfaceIsNamedByItsRdmaDevice) {
  model::Inventory inventory;
  for (auto [name, netdev] : {std::pair{"mlx5_0", "net1"}, {"mlx5_1", "net2"}}) {
    model::RdmaDevice d;
    d.name = name;
    model::RdmaPort p;
    p.port = 1;
    p.netdev = netdev;
    d.ports.push_back(p);
    inventory.rdma_devices.push_back(d);
  }
  std::vector<fabric::LldpNeighbor> heard{cabled("net2", "", "leaf-r1", 1),
                                          cabled("eth0", "stale", "mgmt", 9)};
  mapLldpDevices(heard, inventory);
  EXPECT_EQ(heard[0].device, "mlx5_1");
  EXPECT_EQ(heard[1].device, "");  // the management port has no RDMA device
}

TEST(ValidateLldp, TheCommandRunsThroughTheShellAndItsFailureIsAReasonNotAnError) {
  Environment env{{"PATH", "/usr/bin:/bin"}};
  model::Inventory none;
  auto read = readNodeLldp("cat '" + kTwoLeaves + "'", "node001", none, env);
  ASSERT_TRUE(read.read) << read.unavailable;
  ASSERT_EQ(read.neighbors.size(), 2u);
  EXPECT_EQ(read.neighbors[0].interface, "eth0");
  EXPECT_EQ(read.neighbors[0].chassis_name, "leaf-r0");

  auto missing = readNodeLldp("railkit-no-such-lldpctl -f json", "n", none, env);
  EXPECT_FALSE(missing.read);
  EXPECT_NE(missing.unavailable.find("'railkit-no-such-lldpctl -f json' failed"), std::string::npos)
      << missing.unavailable;
  EXPECT_NE(missing.unavailable.find("not found"), std::string::npos) << missing.unavailable;
  // lldpctl's time stamp goes, so the same failure reads the same on every node.
  auto stamped =
      readNodeLldp("echo '2026-11-29T02:01:30 [WARN/control] unable to connect' >&2; exit 1", "n", none, env);
  EXPECT_NE(stamped.unavailable.find("failed: /bin/sh exited 1: [WARN/control] unable to connect"),
            std::string::npos)
      << stamped.unavailable;
  auto garbage = readNodeLldp("echo not json", "n", none, env);
  EXPECT_FALSE(garbage.read);
  EXPECT_NE(garbage.unavailable.find("printed no lldpctl JSON"), std::string::npos) << garbage.unavailable;
  auto off = readNodeLldp("", "n", none, env);
  EXPECT_FALSE(off.read);
  EXPECT_EQ(off.unavailable, "off (--lldpctl is empty)");
}

}  // namespace
}  // namespace railkit::validate
