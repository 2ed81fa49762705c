// `railkit explain` knows validate's own ids, through the built binary, in
// text and in the explain document.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/process.h"
#include "validate/rules.h"

namespace {

TEST(ValidateExplain, EveryValidateIdIsExplained) {
  ASSERT_FALSE(railkit::validate::allValidateRules().empty());
  for (const auto& rule : railkit::validate::allValidateRules()) {
    auto text = railkit::testing::runRailkitArgv({"explain", rule.id});
    EXPECT_EQ(text.exit_code, 0) << rule.id << ": " << text.err;
    EXPECT_EQ(text.out.rfind(std::string(rule.id) + " (error)", 0), 0u) << text.out;
    EXPECT_NE(text.out.find(rule.title), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("railkit validate"), std::string::npos) << text.out;
    auto doc = railkit::testing::runRailkitArgv({"explain", rule.id, "--json"});
    ASSERT_EQ(doc.exit_code, 0) << doc.err;
    auto j = nlohmann::json::parse(doc.out);
    ASSERT_EQ(j["reported_by"].size(), 1u) << doc.out;
    EXPECT_EQ(j["reported_by"][0]["command"], "validate");
    EXPECT_EQ(j["reported_by"][0]["explain"], rule.explain);
    EXPECT_EQ(j["reported_by"][0]["fix"], rule.fix);
  }
}

}  // namespace
