// --hca-map: names for HCAs whose node description is not "<host> <device>".
#include "fabric/hca_map.h"

#include <gtest/gtest.h>

#include <string>

#include "fabric/ibnetdiscover.h"
#include "fabric/report.h"

namespace railkit::fabric {
namespace {

const std::string kFixtures = std::string(RAILKIT_SOURCE_DIR) + "/tests/fixtures/fabric/";

TEST(HcaMap, KeysAreIdsOrGuidsInAnyCase) {
  auto map = parseHcaMap("# comment\n\nH-00AB  node1  mlx5_0\n0x00cd node2 HCA-3\n", "m.txt");
  ASSERT_TRUE(map) << map.error().message;
  ASSERT_EQ(map->entries.size(), 2u);
  ASSERT_NE(map->find("H-00ab"), nullptr);
  EXPECT_EQ(map->find("H-00ab")->host, "node1");
  EXPECT_EQ(map->find("H-00CD")->device, "HCA-3");
  EXPECT_EQ(map->find("H-00CD")->line, 4);
  EXPECT_EQ(map->find("H-00ef"), nullptr);
}

TEST(HcaMap, RefusesBadLines) {
  auto cols = parseHcaMap("H-1 node1\n", "m.txt");
  ASSERT_FALSE(cols);
  EXPECT_EQ(
      cols.error().message,
      "m.txt:1: expected 'HCA HOST DEVICE' (an HCA id or GUID, its host, and a device name ending in its "
      "number, such as mlx5_3); found 'H-1 node1'");
  auto device = parseHcaMap("H-1 node1 eth\n", "m.txt");
  ASSERT_FALSE(device);
  auto twice = parseHcaMap("H-1 node1 mlx5_0\n0x1 node2 mlx5_1\n", "m.txt");
  ASSERT_FALSE(twice);
  EXPECT_EQ(twice.error().message, "m.txt:2: 0x1 is mapped a second time (first at line 1)");
  EXPECT_FALSE(parseHcaMap("# nothing\n", "m.txt"));
}

TEST(HcaMap, NamesTheUnnamedHcasOfARealCapture) {
  auto f = readIbnetdiscoverFile(kFixtures + "topograph-su8-leaves.out");
  ASSERT_TRUE(f) << f.error().message;
  auto map = readHcaMapFile(kFixtures + "topograph-su8-leaves.hca-map");
  ASSERT_TRUE(map) << map.error().message;
  auto r = analyseFabric(*f, {}, {}, &*map);
  EXPECT_EQ(r.hosts, 17);
  EXPECT_EQ(r.unnamed, 0);
  ASSERT_EQ(r.findings.size(), 2u);  // the swapped pair; no unnamed HCA left
  EXPECT_EQ(r.findings[0].id, "rail-miscabled");
  EXPECT_EQ(r.findings[1].id, "rail-miscabled");
  EXPECT_NE(r.findings[0].message.find("the 16 other nodes' rail 0 are on B09-P1-IBLEAF-03-08"),
            std::string::npos)
      << r.findings[0].message;
}

}  // namespace
}  // namespace railkit::fabric
