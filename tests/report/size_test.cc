// A 1024-node validate run (every pair of the links phase: 523776 links)
// stays a page of under 2 MB: the matrix becomes per-node bars, the fleet
// grid folds identical nodes, the findings are grouped.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "report_test_util.h"
#include "synthetic.h"

namespace railkit::testing {
namespace {

TEST(ReportSize, A1024NodeValidateDocumentMakesAPageUnder2MB) {
  constexpr int kNodes = 1024, kSlow = 417;
  auto json = syntheticValidate(kNodes, kSlow);
  ASSERT_EQ(json["pairs"]["links"].size(), static_cast<size_t>(kNodes) * (kNodes - 1) / 2);
  auto start = std::chrono::steady_clock::now();
  std::string html = page({doc("fleet.json", std::move(json))});
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(html.size(), 2u << 20) << html.size() << " bytes";
  std::printf("1024-node page: %zu bytes in %.2f s\n", html.size(), seconds);
  // The sanitizer build (Debug, ASan) is many times slower: there only the size counts.
  if (std::getenv("RAILKIT_SANITIZER_BUILD") == nullptr) {
    EXPECT_LT(seconds, 30.0);
  }
  std::string pairs = sectionOf(html, "pairs");
  EXPECT_EQ(countOf(pairs, "<rect class=\"cell "), 0u);  // no 10^6-cell matrix
  EXPECT_EQ(countOf(pairs, "<rect class=\"bar "), static_cast<size_t>(kNodes));
  EXPECT_NE(pairs.find("<b>r417</b> node-0417"), std::string::npos);  // the suspect named
  EXPECT_NE(pairs.find("the 50 slowest of 523776"), std::string::npos);
  std::string verdict = sectionOf(html, "verdict");
  EXPECT_NE(verdict.find("768 of 1024 nodes"), std::string::npos);  // memlock-limit on 3 of 4 nodes
  std::string fleet = sectionOf(html, "fleet");
  EXPECT_LT(countOf(fleet, "<tr>"), 20u);  // folded, not 1024 rows
  EXPECT_EQ(countOf(sectionOf(html, "topology"), "<table class=\"topo\">"), 2u);
}

}  // namespace
}  // namespace railkit::testing
