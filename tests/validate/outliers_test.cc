// findOutliers, formatOutliers and the JSON forms on hand-made attribute
// lists: grouping of hosts, three-way splits, what travels and what is
// refused, and a 1024-node cluster (a size check, not a timing).
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>

#include "validate/consistency.h"

using railkit::validate::findOutliers;
using railkit::validate::formatOutliers;
using railkit::validate::NodeAttribute;
using railkit::validate::NodeAttributes;
using railkit::validate::Outlier;

namespace {

// `count` nodes with one attribute `name`; value `odd_value` on the nodes in `odd`.
std::vector<NodeAttributes> oneAttribute(int count, const std::string& name, const std::string& value,
                                         const std::map<int, std::string>& odd) {
  std::vector<NodeAttributes> nodes;
  for (int i = 0; i < count; ++i) {
    auto it = odd.find(i);
    nodes.push_back({"node-" + std::to_string(i), {{name, it == odd.end() ? value : it->second}}});
  }
  return nodes;
}

TEST(FormatOutliers, HostsOfOneValueShareALine) {
  auto nodes = oneAttribute(16, "net1 MTU", "9000", {{3, "1500"}, {7, "1500"}, {9, "1500"}});
  auto outliers = findOutliers(nodes);
  ASSERT_EQ(outliers.size(), 3u);
  EXPECT_EQ(outliers[0].majority_count, 13);
  EXPECT_EQ(formatOutliers(outliers, 16),
            std::vector<std::string>{"3 nodes (node-3, node-7, node-9) net1 MTU 1500; the 13 others 9000"});
}

TEST(FormatOutliers, AtMostFiveHostsNamed) {
  std::map<int, std::string> odd;
  for (int i : {1, 2, 4, 6, 8, 10, 12}) odd[i] = "1500";
  auto lines = formatOutliers(findOutliers(oneAttribute(20, "net1 MTU", "9000", odd)), 20);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0],
            "7 nodes (node-1, node-2, node-4, node-6, node-8 and 2 more) net1 MTU 1500; the 13 others 9000");
}

TEST(FormatOutliers, ThreeValuesSayHowManyOfTheOthersAgree) {
  auto outliers = findOutliers(oneAttribute(16, "mlx5_0 firmware", "A", {{2, "B"}, {11, "C"}}));
  ASSERT_EQ(outliers.size(), 2u);
  EXPECT_EQ(formatOutliers(outliers, 16),
            (std::vector<std::string>{"node-2 mlx5_0 firmware B; 14 of the 15 others A",
                                      "node-11 mlx5_0 firmware C; 14 of the 15 others A"}));
}

TEST(FindOutliers, AgreementAndTooFewNodesGiveNone) {
  EXPECT_TRUE(findOutliers(oneAttribute(8, "GPU count", "8", {})).empty());
  EXPECT_TRUE(findOutliers(oneAttribute(1, "GPU count", "8", {})).empty());
  EXPECT_TRUE(findOutliers({}).empty());
}

TEST(FindOutliers, OrderedByAttributeThenHost) {
  std::vector<NodeAttributes> nodes;
  for (int i = 0; i < 5; ++i)
    nodes.push_back(
        {"n" + std::to_string(i), {{"a", i == 4 ? "x" : "y"}, {"b", i == 1 || i == 3 ? "x" : "y"}}});
  auto outliers = findOutliers(nodes);
  ASSERT_EQ(outliers.size(), 3u);
  EXPECT_EQ(outliers[0].attribute + " " + outliers[0].host, "a n4");
  EXPECT_EQ(outliers[1].attribute + " " + outliers[1].host, "b n1");
  EXPECT_EQ(outliers[2].attribute + " " + outliers[2].host, "b n3");
}

TEST(FindOutliers, AttributeFewNodesHaveNamesThoseNodes) {
  // 2 of 6 nodes have an extra device: they are the outliers, against "(absent)".
  std::vector<NodeAttributes> nodes;
  for (int i = 0; i < 6; ++i) {
    std::vector<NodeAttribute> a{{"GPU count", "8"}};
    if (i == 0 || i == 5) a.push_back({"mlx5_8 firmware", "28.39.1002"});
    nodes.push_back({"node-" + std::to_string(i), a});
  }
  auto outliers = findOutliers(nodes);
  ASSERT_EQ(outliers.size(), 2u);
  EXPECT_EQ(outliers[0].host, "node-0");
  EXPECT_EQ(outliers[0].majority_value, "(absent)");
  EXPECT_EQ(outliers[0].majority_count, 4);
  EXPECT_EQ(
      formatOutliers(outliers, 6),
      std::vector<std::string>{"2 nodes (node-0, node-5) mlx5_8 firmware 28.39.1002; the 4 others (absent)"});
}

TEST(OutliersJson, TieOnlyWhenTrue) {
  auto clear = railkit::validate::outliersToJson(findOutliers(oneAttribute(3, "x", "1", {{2, "2"}})));
  ASSERT_EQ(clear.size(), 1u);
  EXPECT_EQ(clear[0], (nlohmann::json{{"attribute", "x"},
                                      {"host", "node-2"},
                                      {"value", "2"},
                                      {"majority_value", "1"},
                                      {"majority_count", 2}}));
  auto tie = railkit::validate::outliersToJson(findOutliers(oneAttribute(2, "x", "1", {{1, "2"}})));
  ASSERT_EQ(tie.size(), 1u);
  EXPECT_EQ(tie[0]["tie"], true);
}

TEST(AttributesJson, RefusesWhatIsNotAnObjectOfStrings) {
  auto not_object = railkit::validate::attributesFromJson(nlohmann::json::array());
  ASSERT_FALSE(not_object.has_value());
  EXPECT_EQ(not_object.error().code, railkit::ErrorCode::kInvalidInput);
  auto number = railkit::validate::attributesFromJson(nlohmann::json{{"GPU count", 8}});
  ASSERT_FALSE(number.has_value());
  EXPECT_EQ(number.error().code, railkit::ErrorCode::kInvalidInput);
  EXPECT_NE(number.error().message.find("GPU count"), std::string::npos) << number.error().message;
}

TEST(FindOutliers, ThousandNodesOfManyAttributes) {
  // 1024 nodes x 160 attributes with one node off on one attribute, and every
  // node with its own value of another (a per-node variable): exactly those found.
  std::vector<NodeAttribute> base;
  for (int i = 0; i < 160; ++i)
    base.push_back({"attr " + std::to_string(1000 + i), "value " + std::to_string(i)});
  std::vector<NodeAttributes> nodes;
  for (int n = 0; n < 1024; ++n) {
    nodes.push_back({"node-" + std::to_string(n), base});
    nodes.back().attributes[7].value = n == 777 ? "odd" : base[7].value;
    nodes.back().attributes[9].value = "own " + std::to_string(n);
  }
  auto outliers = findOutliers(nodes);
  // attr 1009: 1024 distinct values, a 1024-way tie: every node but the first is named.
  ASSERT_EQ(outliers.size(), 1u + 1023u);
  EXPECT_EQ(outliers[0].attribute, "attr 1007");
  EXPECT_EQ(outliers[0].host, "node-777");
  EXPECT_EQ(outliers[0].majority_count, 1023);
  EXPECT_TRUE(outliers[1].tie);
  auto lines = formatOutliers(outliers, 1024);
  ASSERT_EQ(lines.size(), 1u + 1023u);
  EXPECT_EQ(lines[0], "node-777 attr 1007 odd; the 1023 others value 7");
}

}  // namespace
