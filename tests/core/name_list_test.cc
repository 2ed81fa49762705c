#include "core/name_list.h"

#include <gtest/gtest.h>

namespace railkit {
namespace {

TEST(NameList, PrefixMatch) {
  auto spec = parseNameList("eth,ib");
  EXPECT_TRUE(nameListSelects(spec, "eth0"));
  EXPECT_TRUE(nameListSelects(spec, "ib1"));
  EXPECT_FALSE(nameListSelects(spec, "net1"));
}

TEST(NameList, ExactMatch) {
  auto spec = parseNameList("=eth0");
  EXPECT_TRUE(nameListSelects(spec, "eth0"));
  EXPECT_FALSE(nameListSelects(spec, "eth01"));
}

TEST(NameList, Exclude) {
  auto spec = parseNameList("^docker,lo");
  EXPECT_FALSE(nameListSelects(spec, "lo"));
  EXPECT_FALSE(nameListSelects(spec, "docker0"));
  EXPECT_TRUE(nameListSelects(spec, "eth0"));
}

TEST(NameList, ExcludeExact) {
  auto spec = parseNameList("^=eth0");
  EXPECT_FALSE(nameListSelects(spec, "eth0"));
  EXPECT_TRUE(nameListSelects(spec, "eth01"));
}

TEST(NameList, HcaPorts) {
  auto spec = parseNameList("mlx5_0:1,mlx5_3", true);
  ASSERT_EQ(spec.entries.size(), 2u);
  EXPECT_TRUE(nameListSelects(spec, "mlx5_0", 1));
  EXPECT_FALSE(nameListSelects(spec, "mlx5_0", 2));
  EXPECT_TRUE(nameListSelects(spec, "mlx5_3", 2));
  EXPECT_FALSE(nameListSelects(spec, "mlx5_1", 1));
}

TEST(NameList, EmptyAndSpaces) {
  auto spec = parseNameList("  ");
  EXPECT_TRUE(spec.entries.empty());
  EXPECT_FALSE(nameListSelects(spec, "eth0"));
  auto spaced = parseNameList(" eth0 , net1 ");
  EXPECT_TRUE(nameListSelects(spaced, "net1"));
}

}  // namespace
}  // namespace railkit
