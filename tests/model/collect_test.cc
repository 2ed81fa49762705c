// collectInventory over NodeBuilder trees, the JSON contract, hwloc XMLs,
// .tar.gz roots, and the inspect CLI end to end.
#include "model/collect.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli/cli_run.h"
#include "model/collect_parts.h"
#include "model/hwloc_xml.h"
#include "model/root_source.h"
#include "support/node_builder.h"
#include "support/test_support.h"

namespace fs = std::filesystem;
using namespace railkit;
using railkit::testing::NodeBuilder;

namespace {
fs::path tempDir(const std::string& name) {
  fs::path d = fs::temp_directory_path() / ("railkit-model-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(d);
  return d;
}

model::Inventory collect(const fs::path& dir) {
  auto inv = model::collectInventory(FileRoot(dir), {});
  EXPECT_TRUE(inv.has_value());
  return inv ? *inv : model::Inventory{};
}

std::string distance(const model::Inventory& inv, const std::string& gpu, const std::string& nic) {
  for (const auto& e : inv.topology.gpu_nic)
    if (e.gpu == gpu && e.nic == nic) return model::distanceName(e.distance);
  return "absent";
}

std::string run(const std::string& args) {
  auto r = railkit::testing::runRailkit(args);
  return r.out + "\nrc=" + std::to_string(r.status);
}
}  // namespace

TEST(ModelCollect, HealthyDgxInventory) {
  fs::path dir = tempDir("dgx");
  railkit::testing::buildHealthyDgxH100(dir);
  auto inv = collect(dir);
  ASSERT_EQ(inv.rdma_devices.size(), 8u);
  ASSERT_EQ(inv.gpus.size(), 8u);
  const auto& d = inv.rdma_devices[3];
  EXPECT_EQ(d.name, "mlx5_3");
  ASSERT_EQ(d.ports.size(), 1u);
  EXPECT_EQ(d.ports[0].state, "ACTIVE");
  EXPECT_EQ(d.ports[0].phys_state, "LinkUp");
  EXPECT_DOUBLE_EQ(d.ports[0].rate_gbps.value(), 400.0);
  EXPECT_EQ(d.ports[0].netdev, "ib3");
  EXPECT_EQ(d.ports[0].sm_lid.value(), 1u);
  ASSERT_TRUE(d.pci.has_value());
  EXPECT_EQ(d.pci->numa_node.value(), 0);
  EXPECT_DOUBLE_EQ(d.pci->link.current_speed_gts.value(), 32.0);
  EXPECT_EQ(inv.gpus[0].pci.vendor, "0x10de");
  EXPECT_EQ(inv.gpus[0].model, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(distance(inv, "gpu0", "mlx5_0"), "PIX");
  EXPECT_EQ(distance(inv, "gpu0", "mlx5_1"), "NODE");
  EXPECT_EQ(distance(inv, "gpu0", "mlx5_7"), "SYS");
  EXPECT_TRUE(inv.process.memlock.unlimited);
  EXPECT_TRUE((*inv.process.cap_eff >> 14) & 1);
  EXPECT_EQ(*inv.process.shm_bytes, 256ull << 30);
  EXPECT_EQ(inv.dev_infiniband.size(), 9u);
  EXPECT_EQ(inv.process.env.at("NCCL_SOCKET_IFNAME"), "eth0");
  EXPECT_EQ(inv.process.env.count("PATH"), 0u);
  ASSERT_FALSE(inv.bridges.empty());
  for (const auto& b : inv.bridges) {
    EXPECT_TRUE(b.acs_known) << b.address;
    EXPECT_FALSE(b.request_redirect) << b.address;
  }
  fs::remove_all(dir);
}

TEST(ModelCollect, BreakagesAreSeen) {
  fs::path dir = tempDir("broken");
  auto node = NodeBuilder::healthyRoce();
  node.setAcsAboveNic("mlx5_0", 0x4)
      .setBridgeConfigSize(4096)
      .addVfs("mlx5_1", 4)
      .moveNicFar("mlx5_2")
      .setMemlock(65536)
      .degradeNicLink("mlx5_3", 8, "16.0 GT/s PCIe");
  node.write(dir);
  auto inv = collect(dir);
  EXPECT_EQ(inv.rdma_devices[0].ports[0].link_layer, "Ethernet");
  EXPECT_EQ(inv.rdma_devices[0].ports[0].netdev, "ens0f0np0");
  ASSERT_EQ(inv.rdma_devices[0].ports[0].gids.size(), 4u);
  EXPECT_EQ(inv.rdma_devices[0].ports[0].gids[3].type, "RoCE v2");
  EXPECT_EQ(inv.rdma_devices[1].sriov.num_vfs.value(), 4);
  EXPECT_EQ(inv.rdma_devices[1].sriov.vfs.size(), 4u);
  EXPECT_EQ(inv.rdma_devices[3].pci->link.current_width.value(), 8);
  bool rr = false;
  for (const auto& b : inv.bridges) rr |= b.request_redirect;
  EXPECT_TRUE(rr);
  EXPECT_NE(distance(inv, "gpu2", "mlx5_2"), "PIX");
  EXPECT_FALSE(inv.process.memlock.unlimited);
  EXPECT_EQ(inv.process.memlock.bytes, 65536u);
  node.setBridgeConfigSize(256).write(dir);
  auto short_inv = collect(dir);
  for (const auto& b : short_inv.bridges) EXPECT_FALSE(b.acs_known);
  fs::remove_all(dir);
}

TEST(ModelCollect, JsonContract) {
  fs::path dir = tempDir("json");
  railkit::testing::buildHealthyDgxH100(dir);
  auto j = model::inventoryToJson(collect(dir));
  const auto& port = j.at("rdma_devices").at(0).at("ports").at(0);
  for (const char* k : {"port", "state", "phys_state", "rate_gbps", "link_layer", "gids", "netdev"})
    EXPECT_TRUE(port.contains(k)) << k;
  EXPECT_EQ(j.at("gpus").at(0).at("pci"), "0000:1b:00.0");
  EXPECT_EQ(j.at("topology").at("gpu_nic").size(), 64u);
  EXPECT_EQ(j.at("topology").at("gpu_nic").at(0).at("distance"), "PIX");
  EXPECT_EQ(j.at("default_route_interface"), "");  // the tree has no /proc/net/route
  fs::remove_all(dir);
}

// live.json's routing and dcb: read into the inventory and written back the
// same; missing or malformed parts stay unknown (null / absent), never "off".
TEST(ModelCollect, RoutingAndDcbFromLiveJson) {
  fs::path dir = tempDir("routing");
  auto node = NodeBuilder::healthyRoce();
  nlohmann::json live = {
      {"routing",
       {{"rules", {{{"priority", 100}, {"from", "10.10.1.1/32"}, {"table", "101"}}}},
        {"routes",
         {{{"table", "101"},
           {"type", "unicast"},
           {"dst", "10.10.0.0/16"},
           {"dev", "ens1f0np0"},
           {"src", "10.10.1.1"},
           {"gateway", ""}}}},
        {"sysctls", {{"all", {{"rp_filter", 2}, {"arp_ignore", 1}, {"arp_announce", 2}}}}}}},
      {"dcb", {{"ens1f0np0", {{"pfc_enabled", {3}}}}}}};
  node.setLiveJson(live.dump()).setEcn("ens1f0np0", 0xff, 0x0f).write(dir);
  auto inv = collect(dir);
  ASSERT_TRUE(inv.routing.rules && inv.routing.routes);
  EXPECT_EQ(inv.routing.rules->at(0).from, "10.10.1.1/32");
  EXPECT_EQ(inv.routing.routes->at(0).dev, "ens1f0np0");
  EXPECT_EQ(inv.routing.sysctls.at("all").arp_announce, 2);
  EXPECT_EQ(inv.pfc_enabled.at("ens1f0np0"), 0x08);
  auto j = model::inventoryToJson(inv);
  EXPECT_EQ(j.at("routing").at("sysctls"), live.at("routing").at("sysctls"));
  EXPECT_EQ(j.at("routing").at("routes"), live.at("routing").at("routes"));
  EXPECT_EQ(j.at("dcb"), live.at("dcb"));
  for (const auto& n : j.at("interfaces")) {
    if (n.at("name") == "ens1f0np0") {
      EXPECT_EQ(n.at("ecn").at("roce_rp_enabled"), nlohmann::json({0, 1, 2, 3}));
    } else {
      EXPECT_TRUE(n.at("ecn").is_null()) << n.at("name");
    }
  }

  node.setLiveJson(R"({"routing": {"rules": "x", "routes": [1, {"table": 5}],
                       "sysctls": {"eth0": {"rp_filter": "1"}}},
                       "dcb": {"ens0f0np0": {}, "ens1f0np0": {"pfc_enabled": [3, 9, "x"]}}})")
      .write(dir);
  inv = collect(dir);
  EXPECT_FALSE(inv.routing.rules.has_value());
  ASSERT_TRUE(inv.routing.routes.has_value());
  EXPECT_EQ(inv.routing.routes->size(), 1u);
  EXPECT_FALSE(inv.routing.sysctls.at("eth0").rp_filter.has_value());
  EXPECT_EQ(inv.pfc_enabled.count("ens0f0np0"), 0u);  // no list: unknown, not "none"
  EXPECT_EQ(inv.pfc_enabled.at("ens1f0np0"), 0x08);

  node.setLiveJson("{}").write(dir);  // an old snapshot: no routing, no dcb
  j = model::inventoryToJson(collect(dir));
  EXPECT_TRUE(j.at("routing").is_null());
  EXPECT_TRUE(j.at("dcb").is_null());
  fs::remove_all(dir);
}

TEST(ModelCollect, DefaultRouteAndDevPort) {
  fs::path dir = tempDir("route");
  railkit::testing::buildHealthyDgxH100(dir);
  fs::create_directories(dir / "proc/net");
  std::ofstream(dir / "proc/net/route")
      << "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n"
         "eth0\t00000000\t0101F40A\t0003\t0\t0\t0\t00000000\t0\t0\t0\n";
  auto inv = collect(dir);
  EXPECT_EQ(inv.default_route_interface, "eth0");
  for (const auto& n : inv.interfaces) {
    if (n.name == "ib3") {
      EXPECT_EQ(n.dev_port, 0);
    }
  }
  auto j = model::inventoryToJson(inv);
  EXPECT_EQ(j.at("default_route_interface"), "eth0");
  EXPECT_TRUE(j.at("interfaces").at(0).contains("dev_port"));
  fs::remove_all(dir);
}

TEST(ModelHwloc, AllSharedTopologiesLoad) {
  RAILKIT_REQUIRE_SHARED();
  fs::path dir = railkit::testing::sharedDir() / "topologies" / "hwloc";
  int files = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() != ".xml") continue;
    ++files;
    auto topo = model::loadHwlocXml(e.path().string());
    ASSERT_TRUE(topo.has_value()) << e.path() << ": " << topo.error().message;
    EXPECT_FALSE(topo->gpus.empty()) << e.path();
  }
  EXPECT_GE(files, 10);
}

TEST(ModelHwloc, DistancesMatchSources) {
  RAILKIT_REQUIRE_SHARED();
  fs::path dir = railkit::testing::sharedDir() / "topologies" / "hwloc";
  auto load = [&](const char* name) {
    auto topo = model::loadHwlocXml((dir / name).string());
    EXPECT_TRUE(topo.has_value()) << name;
    model::Inventory inv;
    if (topo) model::applyHwlocTopology(*topo, inv);
    return inv;
  };
  auto pascal = load("cts1-pascal.xml");
  EXPECT_EQ(distance(pascal, "gpu0", "mlx5_0"), "PIX");
  EXPECT_EQ(distance(pascal, "gpu1", "mlx5_0"), "PIX");
  auto jwb = load("topo.jwb0001.xml");
  ASSERT_EQ(jwb.gpus.size(), 4u);
  for (const auto& g : jwb.gpus) {
    int pix = 0;
    for (const char* nic : {"mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"})
      pix += distance(jwb, g.name, nic) == "PIX";
    EXPECT_EQ(pix, 1) << g.name;
  }
  auto g4 = load("g4dnmetal.xml");  // EFA on socket 1, behind no GPU's switch
  for (const auto& g : g4.gpus) {
    auto d = distance(g4, g.name, "rdmap197s0");
    EXPECT_TRUE(d == "NODE" || d == "SYS") << g.name << " " << d;
  }
  auto lassen = load("coral-lassen.xml");  // 3.x and 2.x dialects, different host bridges
  EXPECT_EQ(distance(lassen, "gpu0", "mlx5_0"), "NODE");
}

TEST(ModelHwloc, GarbageIsAnError) {
  EXPECT_FALSE(model::parseHwlocXml("<not-xml", "x").has_value());
  EXPECT_FALSE(model::parseHwlocXml("<foo/>", "x").has_value());
  EXPECT_FALSE(model::loadHwlocXml("/nonexistent/file.xml").has_value());
}

TEST(InspectCli, RootDirAndTarGzGiveSameJson) {
  fs::path dir = tempDir("cli");
  railkit::testing::buildHealthyDgxH100(dir);
  fs::path tgz = dir.string() + ".tar.gz";
  ASSERT_EQ(railkit::testing::runShell("tar -czf " + tgz.string() + " -C " + dir.string() + " .").status, 0);
  auto a = run("inspect --json --root " + dir.string());
  auto b = run("inspect --json --root " + tgz.string());
  ASSERT_NE(a.find("rc=0"), std::string::npos) << a;
  auto ja = nlohmann::json::parse(a.substr(0, a.rfind("\nrc=")));
  auto jb = nlohmann::json::parse(b.substr(0, b.rfind("\nrc=")));
  ja.erase("root");
  jb.erase("root");
  EXPECT_EQ(ja, jb);
  auto human = run("inspect --root " + dir.string());
  EXPECT_NE(human.find("mlx5_0       port 1 ==> ib0"), std::string::npos) << human;
  EXPECT_NE(human.find("GPU/NIC distance"), std::string::npos);
  auto missing = run("inspect --root " + dir.string() + "-missing 2>&1");
  EXPECT_NE(missing.find("rc=2"), std::string::npos) << missing;
  fs::remove_all(dir);
  fs::remove(tgz);
}

TEST(ModelRootSource, RejectsEscapingEntries) {
  fs::path dir = tempDir("evil");
  fs::create_directories(dir / "a");
  std::ofstream(dir / "a" / "f") << "x";
  fs::path tgz = dir.string() + "-evil.tar.gz";
  // --transform makes an entry named ../f
  ASSERT_EQ(railkit::testing::runShell("tar -czf " + tgz.string() + " -C " + dir.string() +
                                       " --transform='s,^a/f,../f,' a/f")
                .status,
            0);
  auto src = model::RootSource::open(tgz);
  EXPECT_FALSE(src.has_value());
  fs::remove_all(dir);
  fs::remove(tgz);
}
