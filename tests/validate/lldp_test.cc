// validate's LLDP: what a rank reads and sends (node_lldp.h), rank 0's strict
// reading of it, and the fabric rank 0 checks from every node's neighbours
// (fabric_lldp.h), from parsed reports as phase 1 gathers them.
#include <gtest/gtest.h>

#include <functional>

#include "validate/fabric_lldp.h"
#include "validate/node_lldp.h"
#include "validate/node_report.h"
#include "validate/report.h"
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

struct Gathered {
  std::vector<nlohmann::json> reports;
  std::vector<std::string> labels;
};

// What rank 0 holds after phase 1: each node's report sent and read back.
Gathered gather(const std::vector<NodeInput>& nodes) {
  Gathered g;
  for (std::size_t r = 0; r < nodes.size(); ++r) {
    auto sent = makeNodeReport(static_cast<int>(r), nodes[r], NodeCheck{});
    g.reports.push_back(parseNodeReport(sent.dump(), static_cast<int>(r)));
    g.labels.push_back(nodes[r].host);
  }
  return g;
}

std::vector<NodeInput> fourNodes() {
  std::vector<NodeInput> nodes;
  for (int i = 0; i < 4; ++i) nodes.push_back(railNode(i));
  return nodes;
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

TEST(ValidateLldpFabric, AHealthyRailFabricHasNoFailure) {
  auto g = gather(fourNodes());
  auto check = checkLldpFabric(g.reports, g.labels, "");
  ASSERT_FALSE(check.section.is_null());
  EXPECT_TRUE(check.failures.empty());
  EXPECT_TRUE(check.notes.empty());
  EXPECT_EQ(check.section["source"], "lldp");
  EXPECT_EQ(check.section["nodes_with_lldp"], (nlohmann::json{"node1", "node2", "node3", "node4"}));
  EXPECT_TRUE(check.section["nodes_without_lldp"].empty());
  EXPECT_EQ(check.section["fabric"]["hosts"], 4);
  EXPECT_EQ(check.section["fabric"]["rails"], 2);
  ASSERT_EQ(check.section["rails"].size(), 2u);
  EXPECT_EQ(check.section["rails"][1]["device"], "mlx5_1");
  EXPECT_EQ(check.section["rails"][1]["leaves"][0]["leaf"], "leaf-r1");
  EXPECT_EQ(check.section["rails"][1]["leaves"][0]["hcas"], 4);
  EXPECT_EQ(check.section["findings"], nlohmann::json::array()) << check.section["findings"].dump(1);

  ValidateConfig config;
  Report report(config, 4);
  report.setNodes(g.reports, g.labels);
  report.setFabric(check);
  EXPECT_EQ(report.verdict(), "pass");
  EXPECT_EQ(report.document()["fabric"], check.section);
}

TEST(ValidateLldpFabric, ACableOnAnotherRailsLeafFailsTheRun) {
  auto nodes = fourNodes();
  nodes[2].lldp.neighbors[1] = cabled("net2", "mlx5_1", "leaf-r0", 5);
  auto g = gather(nodes);
  auto check = checkLldpFabric(g.reports, g.labels, "");
  ASSERT_EQ(check.failures.size(), 1u) << check.section["findings"].dump(1);
  EXPECT_EQ(check.failures[0].rfind(
                "fabric: [rail-miscabled] node3 mlx5_1: node3 mlx5_1 (rail 1) is on leaf-r0", 0),
            0u)
      << check.failures[0];
  EXPECT_NE(check.failures[0].find("swp5"), std::string::npos) << check.failures[0];

  ValidateConfig config;
  Report report(config, 4);
  report.setNodes(g.reports, g.labels);
  report.setFabric(check);
  EXPECT_EQ(report.verdict(), "fail");
  auto failures = report.failures();
  EXPECT_NE(std::find(failures.begin(), failures.end(), check.failures[0]), failures.end());
  auto doc = report.document();
  EXPECT_EQ(doc["phases"]["node"]["fabric_failures"].size(), 1u);
  std::string text = formatVerdict(doc);
  EXPECT_NE(text.find("Fabric (LLDP of 4 node(s)): 2 leaf switch(es), 2 rail(s)"), std::string::npos) << text;
  EXPECT_NE(text.find("  [rail-miscabled] node3 mlx5_1: node3 mlx5_1 (rail 1)"), std::string::npos) << text;
}

// Ranks on one host are "host (rN)" in the verdict; the fabric names a port
// "<host> <device>", so there the node is one word.
TEST(ValidateLldpFabric, ARepeatedHostIsOneWordInTheFabric) {
  auto nodes = fourNodes();
  nodes[2].lldp.neighbors[1] = cabled("net2", "mlx5_1", "leaf-r0", 5);
  auto g = gather(nodes);
  g.labels = {"vm (r0)", "vm (r1)", "vm (r2)", "vm (r3)"};
  auto check = checkLldpFabric(g.reports, g.labels, "");
  ASSERT_EQ(check.failures.size(), 1u) << check.section["findings"].dump(1);
  EXPECT_EQ(check.failures[0].rfind("fabric: [rail-miscabled] vm(r2) mlx5_1: vm(r2) mlx5_1 (rail 1)", 0), 0u)
      << check.failures[0];
  EXPECT_EQ(check.section["nodes_with_lldp"][2], "vm (r2)");
}

TEST(ValidateLldpFabric, NodesWithoutLldpAreANoteNotAFailure) {
  auto nodes = fourNodes();
  for (auto& n : nodes) n.lldp = NodeLldp{"lldpctl -f json", false, {}, "'lldpctl -f json' failed: exit 1"};
  auto g = gather(nodes);
  auto none = checkLldpFabric(g.reports, g.labels, "");
  EXPECT_TRUE(none.section.is_null());
  EXPECT_TRUE(none.failures.empty());
  ASSERT_EQ(none.notes.size(), 1u);
  EXPECT_EQ(none.notes[0],
            "fabric: not checked, it needs LLDP neighbours from 2 nodes and 0 of 4 sent them (node1, node2, "
            "node3, node4: 'lldpctl -f json' failed: exit 1)");
  ValidateConfig config;
  Report report(config, 4);
  report.setNodes(g.reports, g.labels);
  report.setFabric(none);
  EXPECT_EQ(report.verdict(), "pass");
  EXPECT_FALSE(report.document().contains("fabric"));
  EXPECT_NE(formatVerdict(report.document()).find("note: fabric: not checked"), std::string::npos);

  // Past 3 reasons the note counts the rest.
  for (std::size_t i = 0; i < nodes.size(); ++i)
    nodes[i].lldp = NodeLldp{"lldpctl -f json", false, {}, "reason " + std::to_string(i)};
  g = gather(nodes);
  auto many = checkLldpFabric(g.reports, g.labels, "");
  ASSERT_EQ(many.notes.size(), 1u);
  EXPECT_NE(many.notes[0].find("node3: reason 2; 1 other reason(s): fabric.nodes_without_lldp in the JSON)"),
            std::string::npos)
      << many.notes[0];
  EXPECT_EQ(many.notes[0].find("reason 3"), std::string::npos) << many.notes[0];

  // --lldpctl '' was asked for: no note.
  for (auto& n : nodes) n.lldp = NodeLldp{"", false, {}, "off (--lldpctl is empty)"};
  g = gather(nodes);
  auto off = checkLldpFabric(g.reports, g.labels, "");
  EXPECT_TRUE(off.section.is_null());
  EXPECT_TRUE(off.notes.empty()) << off.notes[0];

  nodes = fourNodes();
  nodes[3].lldp.neighbors.clear();
  g = gather(nodes);
  auto some = checkLldpFabric(g.reports, g.labels, "");
  EXPECT_TRUE(some.failures.empty());
  EXPECT_EQ(some.section["nodes_without_lldp"][0]["node"], "node4");
  ASSERT_EQ(some.notes.size(), 1u);
  EXPECT_EQ(some.notes[0].rfind(
                "fabric: no LLDP from 1 of 4 node(s) (node4: 'lldpctl -f json' shows no neighbour", 0),
            0u)
      << some.notes[0];
}

TEST(ValidateLldpFabric, TheRailsAreTheDataRailsDevices) {
  std::vector<fabric::LldpCapture> captures{
      {"a",
       "node1",
       {cabled("eth0", "", "mgmt", 1), cabled("net10", "mlx5_10", "leaf-r2", 1),
        cabled("net2", "mlx5_2", "leaf-r1", 1), cabled("net1", "mlx5_1", "leaf-r0", 1)}}};
  EXPECT_EQ(lldpRails(captures, ""), (std::vector<std::string>{"mlx5_1", "mlx5_2", "mlx5_10"}));
  EXPECT_EQ(lldpRails(captures, "^mlx5_10"), (std::vector<std::string>{"mlx5_1", "mlx5_2"}));
  EXPECT_EQ(lldpRails(captures, "=mlx5_2,mlx5_10"), (std::vector<std::string>{"mlx5_2", "mlx5_10"}));
  for (auto& n : captures[0].neighbors) n.device.clear();
  EXPECT_EQ(lldpRails(captures, ""), (std::vector<std::string>{"eth0", "net1", "net2", "net10"}));
}

}  // namespace
}  // namespace railkit::validate
