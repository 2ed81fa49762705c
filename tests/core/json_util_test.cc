// jsonOpt, the one way a JSON writer says "not known": null for what the
// input did not show, and the value itself, zero and false included, for
// what it did.
#include "core/json_util.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>

namespace railkit {
namespace {

TEST(JsonOpt, AnAbsentOptionalIsNullAndAPresentZeroIsZero) {
  EXPECT_TRUE(jsonOpt(std::optional<int>{}).is_null());
  EXPECT_EQ(jsonOpt(std::optional<int>{0}), nlohmann::json(0));
  EXPECT_EQ(jsonOpt(std::optional<bool>{false}), nlohmann::json(false));
  EXPECT_EQ(jsonOpt(std::optional<double>{12.5}), nlohmann::json(12.5));
  EXPECT_EQ(jsonOpt(std::optional<std::string>{""}), nlohmann::json(""));  // shown, and empty
}

TEST(JsonOpt, EmptyTextIsNull) {
  EXPECT_TRUE(jsonOpt(std::string()).is_null());
  EXPECT_EQ(jsonOpt(std::string("RoCE")), nlohmann::json("RoCE"));
}

TEST(JsonOpt, AWriterConvertsOnlyAPresentValue) {
  int calls = 0;
  auto hex = [&calls](std::uint64_t v) {
    ++calls;
    return std::to_string(v) + "h";
  };
  EXPECT_TRUE(jsonOpt(std::optional<std::uint64_t>{}, hex).is_null());
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(jsonOpt(std::optional<std::uint64_t>{16}, hex), nlohmann::json("16h"));
  EXPECT_EQ(calls, 1);
}

TEST(JsonOpt, AKnownFlagDecides) {
  EXPECT_TRUE(jsonOpt(false, 42).is_null());
  EXPECT_EQ(jsonOpt(true, 0), nlohmann::json(0));
  nlohmann::json object{{"unlimited", false}};
  EXPECT_EQ(jsonOpt(true, object), object);
  EXPECT_TRUE(jsonOpt(false, object).is_null());
}

}  // namespace
}  // namespace railkit
