// validate's compact pairs links (core/pair_links.h): rows written and read
// back, both forms read alike, and every malformed row named.
#include "core/pair_links.h"

#include <gtest/gtest.h>

namespace railkit {
namespace {

TEST(PairLinks, RowsHoldEachLinkOnceAndReadBackWithFourDigits) {
  std::vector<PairLinkEntry> links{{0, 3, 0.09553697744977489, true},
                                   {1, 2, 7.603572126727894, false},
                                   {0, 2, 7.31, false},
                                   {1, 3, 0.1, true},
                                   {0, 1, 7.4, false},
                                   {2, 3, 0.0812, true}};
  auto rows = encodeLinkRows(4, links);
  ASSERT_EQ(rows, (std::vector<std::string>{"7.4 7.31 0.09554", "7.604 0.1", "0.0812"}));
  nlohmann::json pairs{
      {"link_rows", rows},
      {"slow_links", {{{"a", 3}, {"b", 0}, {"bw_gbps", 0.0955}}, {{"a", 2}, {"b", 3}, {"bw_gbps", 0.08}}}}};
  auto back = readPairLinks(pairs);
  ASSERT_TRUE(back) << back.error().message;
  ASSERT_EQ(back->size(), 6u);
  EXPECT_EQ((*back)[0].a, 0);
  EXPECT_EQ((*back)[0].b, 1);
  EXPECT_DOUBLE_EQ((*back)[3].gbps, 7.604);
  int slow = 0;
  for (const auto& l : *back) slow += l.slow;
  EXPECT_EQ(slow, 2);  // only what slow_links lists: 0-3 and 2-3
  EXPECT_TRUE((*back)[2].slow);
  EXPECT_TRUE((*back)[5].slow);
}

TEST(PairLinks, ALinkNotMeasuredIsADashAndIsLeftOut) {
  auto rows = encodeLinkRows(3, {{0, 1, 12.5, false}, {7, 1, 3, false}, {1, 1, 3, false}});
  EXPECT_EQ(rows, (std::vector<std::string>{"12.5 -", "-"}));
  auto back = readPairLinks(nlohmann::json{{"link_rows", rows}});
  ASSERT_TRUE(back);
  ASSERT_EQ(back->size(), 1u);
  EXPECT_EQ((*back)[0].b, 1);
  EXPECT_TRUE(encodeLinkRows(1, {}).empty());
}

TEST(PairLinks, TheObjectFormIsReadWithItsOwnSlowFlags) {
  nlohmann::json pairs{{"links",
                        {{{"a", 0}, {"b", 1}, {"bw_gbps", 7.4}, {"time_us", 4428.1}, {"slow", false}},
                         {{"a", 0}, {"b", 2}, {"bw_gbps", 0.1}, {"time_us", 327680.0}, {"slow", true}},
                         "not a link"}},
                       {"rounds", {{{0, 1}}, {{0, 2}}}}};
  auto links = readPairLinks(pairs);
  ASSERT_TRUE(links);
  ASSERT_EQ(links->size(), 2u);
  EXPECT_FALSE((*links)[0].slow);
  EXPECT_TRUE((*links)[1].slow);
  EXPECT_DOUBLE_EQ((*links)[1].gbps, 0.1);
  auto none = readPairLinks(nlohmann::json::object());
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
}

TEST(PairLinks, MalformedRowsAreNamedWithWhatWasExpectedAndFound) {
  auto count = parseLinkRow("1 2", 0, 4);
  ASSERT_FALSE(count);
  EXPECT_EQ(count.error().message, "link row 0: expected 3 figure(s) for 4 ranks, found 2");
  for (const char* bad : {"1 x 3", "1 -2 3", "1 nan 3", "1 inf 3", "1 0x 3"}) {
    auto r = parseLinkRow(bad, 0, 4);
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().code, ErrorCode::kInvalidInput);
    EXPECT_NE(r.error().message.find("at field 2, found '"), std::string::npos) << r.error().message;
  }
  EXPECT_FALSE(parseLinkRow("", 3, 4));  // the last rank has no row
  auto not_string = readPairLinks(nlohmann::json{{"link_rows", {"1 2", 3}}});
  ASSERT_FALSE(not_string);
  EXPECT_EQ(not_string.error().message, "link row 1: expected a string, found number");
  EXPECT_TRUE(parseLinkRow("1e-05 12 -", 0, 4));
}

TEST(PairLinks, A1024RankMatrixIsAFewMegabytesOfRows) {
  constexpr int n = 1024;
  std::vector<PairLinkEntry> links;
  for (int a = 0; a < n; ++a)
    for (int b = a + 1; b < n; ++b) links.push_back({a, b, 380.0 + (a * 7 + b * 13) % 400 / 10.0, false});
  auto rows = encodeLinkRows(n, links);
  std::size_t bytes = 0;
  for (const auto& r : rows) bytes += r.size() + 6;  // quotes, comma, newline, indent
  EXPECT_LT(bytes, 4u << 20);
  auto back = readPairLinks(nlohmann::json{{"link_rows", rows}});
  ASSERT_TRUE(back);
  ASSERT_EQ(back->size(), links.size());
  EXPECT_EQ(back->back().a, n - 2);
  EXPECT_NEAR(back->back().gbps, links.back().gbps, 0.05);
}

}  // namespace
}  // namespace railkit
