// The SVG the sections write, read back from pages of real fixtures: the
// points per row, the axis ranges, the bound line where its value says, the
// heatmap's cells, and every string from the input escaped.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

#include "core/pair_links.h"
#include "report/html.h"
#include "report/inputs.h"
#include "report_test_util.h"

namespace railkit::testing {
namespace {

std::vector<double> numbers(const std::string& text) {
  std::vector<double> out;
  std::istringstream in(text);
  for (double v; in >> v;) out.push_back(v);
  return out;
}

// The (x, y) pairs of a polyline's points attribute.
std::vector<std::pair<double, double>> points(const std::string& attr_text) {
  std::vector<std::pair<double, double>> out;
  std::istringstream in(attr_text);
  std::string pair;
  while (in >> pair) {
    auto comma = pair.find(',');
    out.push_back({std::stod(pair.substr(0, comma)), std::stod(pair.substr(comma + 1))});
  }
  return out;
}

TEST(ReportBusbw, OneSeriesPerPlacementWithAPointPerRowAndTheAxesSpanTheSizes) {
  auto bench = readJson(reportFixture("bench-all-reduce-local2.json"));
  const auto& rows = bench["results"][0]["rows"];
  std::string html = sectionOf(page({doc("bench.json", bench)}), "busbw");
  ASSERT_FALSE(html.empty());
  EXPECT_EQ(countOf(html, "<polyline class=\"series\""), 1u);         // out-of-place
  EXPECT_EQ(countOf(html, "<polyline class=\"series dashed\""), 1u);  // in-place
  EXPECT_EQ(attr(html, "data-points"), std::to_string(rows.size()));
  double min_size = rows.front()["size_bytes"], max_size = rows.back()["size_bytes"], max_bw = 0;
  for (const auto& r : rows)
    max_bw = std::max(
        {max_bw, r["out_of_place"]["busbw_gbs"].get<double>(), r["in_place"]["busbw_gbs"].get<double>()});
  EXPECT_EQ(std::stod(attr(html, "data-x-min")), std::exp2(std::floor(std::log2(min_size))));
  EXPECT_EQ(std::stod(attr(html, "data-x-max")), std::exp2(std::ceil(std::log2(max_size))));
  double y_max = std::stod(attr(html, "data-y-max"));
  EXPECT_GE(y_max, max_bw);
  EXPECT_LT(y_max, max_bw * 2.6);  // a "nice" ceiling, not an arbitrary one
  // Sizes are powers of two here: the first point is on the left edge, the
  // last on the right, and x grows with the size.
  auto plot = numbers(attr(html, "data-plot"));
  ASSERT_EQ(plot.size(), 4u);
  auto pts = points(attr(html, "points", html.find("<polyline class=\"series\"")));
  ASSERT_EQ(pts.size(), rows.size());
  EXPECT_NEAR(pts.front().first, plot[0], 0.11);
  EXPECT_NEAR(pts.back().first, plot[2], 0.11);
  for (size_t i = 1; i < pts.size(); ++i) EXPECT_GT(pts[i].first, pts[i - 1].first);
  // The peak and the average are labelled.
  EXPECT_NE(html.find("peak "), std::string::npos);
  EXPECT_NE(
      html.find("avg bus bandwidth " + report::label(bench["results"][0]["avg_busbw_gbs"].get<double>())),
      std::string::npos);
  // The numbers table: one row per size.
  EXPECT_EQ(countOf(html.substr(html.find("<tbody>")), "<tr>"), rows.size());
}

// A bench run without an expectation passes nothing: the verdict says it
// was not graded; with one it does not.
TEST(ReportVerdict, AnUngradedRunSaysSo) {
  auto bench = readJson(reportFixture("bench-all-reduce-local2.json"));
  std::string plain = sectionOf(page({doc("b.json", bench)}), "verdict");
  EXPECT_NE(plain.find("data-verdict=\"pass\""), std::string::npos);
  EXPECT_NE(plain.find("nothing was graded"), std::string::npos);
  bench["results"][0]["expected_busbw_gbs"] = 0.5;
  EXPECT_EQ(sectionOf(page({doc("b.json", bench)}), "verdict").find("nothing was graded"), std::string::npos);
}

TEST(ReportBusbw, TheBoundAndTheGradedFractionAreDrawnAtTheirValues) {
  auto bench = readJson(reportFixture("bench-all-reduce-local2.json"));
  bench["results"][0]["expected_busbw_gbs"] = 2.0;
  bench["line_rate"] = {{"fraction", 0.8}, {"nic_gbps", 20}, {"source", "test"}};
  std::string html = sectionOf(page({doc("bench.json", bench)}), "busbw");
  auto plot = numbers(attr(html, "data-plot"));
  double y_max = std::stod(attr(html, "data-y-max"));
  ASSERT_EQ(plot.size(), 4u);
  EXPECT_GE(y_max, 2.5);  // the bound fits on the chart
  size_t bound = html.find("<line class=\"bound\"");
  size_t graded = html.find("<line class=\"graded\"");
  ASSERT_NE(bound, std::string::npos);
  ASSERT_NE(graded, std::string::npos);
  EXPECT_EQ(std::stod(attr(html, "data-value", bound)), 2.5);  // 2.0 / 0.8
  EXPECT_NEAR(std::stod(attr(html, "y1", bound)), plot[3] - 2.5 / y_max * (plot[3] - plot[1]), 0.01);
  EXPECT_NEAR(std::stod(attr(html, "y1", graded)), plot[3] - 2.0 / y_max * (plot[3] - plot[1]), 0.01);
  EXPECT_NE(html.find("NIC bound 2.5 GB/s"), std::string::npos);
}

// --expect-busbw stricter than the line-rate expectation: the bound is the
// one bench recorded, not the expectation divided by the fraction.
TEST(ReportBusbw, AStricterExpectBusbwLeavesTheBoundWhereItIs) {
  auto bench = readJson(reportFixture("bench-all-reduce-local2.json"));
  bench["results"][0]["expected_busbw_gbs"] = 3.0;
  bench["results"][0]["nic_bound_busbw_gbs"] = 2.5;
  bench["line_rate"] = {{"fraction", 0.8}, {"nic_gbps", 20}, {"source", "test"}};
  std::string html = sectionOf(page({doc("bench.json", bench)}), "busbw");
  size_t bound = html.find("<line class=\"bound\"");
  size_t graded = html.find("<line class=\"graded\"");
  ASSERT_NE(bound, std::string::npos);
  ASSERT_NE(graded, std::string::npos);
  EXPECT_EQ(std::stod(attr(html, "data-value", bound)), 2.5);
  EXPECT_EQ(std::stod(attr(html, "data-value", graded)), 3.0);
  EXPECT_NE(html.find("NIC bound 2.5 GB/s"), std::string::npos);
  EXPECT_NE(html.find("expected 3 GB/s"), std::string::npos) << html;
  EXPECT_EQ(html.find("0.8x bound 3"), std::string::npos);
}

TEST(ReportBusbw, SeveralRunsOfOneOpAreOverlaidWithALegend) {
  auto a = readJson(reportFixture("bench-all-reduce-local2.json"));
  auto b = readJson(reportFixture("validate-local4.json"));
  std::string html = sectionOf(page({doc("a.json", a), doc("b.json", b)}), "busbw");
  EXPECT_EQ(countOf(html, "<h3>"), 1u);  // one chart: both ran all_reduce
  EXPECT_EQ(countOf(html, "<polyline class=\"series"), 4u);
  EXPECT_EQ(countOf(html, "<g class=\"s0\">"), 2u);
  EXPECT_EQ(countOf(html, "<g class=\"s1\">"), 2u);
  EXPECT_EQ(countOf(html, "<ul class=\"legend\"><li>"), 1u);
  EXPECT_NE(html.find("a.json (bench)"), std::string::npos);
  EXPECT_NE(html.find("b.json (validate)"), std::string::npos);
}

// bench p2p and perftest outputs (through the logs reader) share one Gb/s chart.
TEST(ReportP2p, BenchP2pAndPerftestAreOverlaidInGbps) {
  RAILKIT_REQUIRE_SHARED();
  auto p2p = readJson(reportFixture("bench-p2p-local2.json"));
  auto loaded = report::loadInputs({(sharedDir() / "data" / "perftest" / "008.txt").string()});
  ASSERT_EQ(loaded.documents.size(), 1u);
  const auto& perftest = loaded.documents[0].json["inputs"][0]["rows"];
  std::vector<report::Document> docs = {doc("p2p.json", p2p), loaded.documents[0]};
  std::string html = sectionOf(page(docs), "p2p");
  ASSERT_FALSE(html.empty());
  EXPECT_NE(html.find("bandwidth, average (Gb/s)"), std::string::npos);
  size_t first = html.find("data-points=\"");
  EXPECT_EQ(attr(html, "data-points", first - 1), std::to_string(p2p["p2p"]["bandwidth"].size()));
  EXPECT_EQ(attr(html, "data-points", html.find("data-points=\"", first + 1) - 1),
            std::to_string(perftest.size()));
  EXPECT_NE(html.find("(ib_write_bw on mlx5_3)"), std::string::npos);
}

// The validate run of the netns tests measured ~0.01 GB/s: six grid lines,
// six different labels (two decimals would print 0.01 twice and 0 twice).
TEST(ReportBusbw, TickLabelsOfSmallBandwidthsAreDistinct) {
  std::string html =
      sectionOf(page({doc("v.json", readJson(reportFixture("validate-netns-broken.json")))}), "busbw");
  std::set<std::string> labels;
  size_t count = 0;
  const std::string open = "text-anchor=\"end\">";
  for (size_t at = html.find(open); at != std::string::npos; at = html.find(open, at + 1)) {
    at += open.size();
    labels.insert(html.substr(at, html.find('<', at) - at));
    ++count;
  }
  EXPECT_EQ(count, 6u);
  EXPECT_EQ(labels.size(), 6u);
}

TEST(ReportPairs, OneCellPerOrderedPairAndSlowLinksAndSuspectsMarked) {
  auto pairs = readJson(reportFixture("bench-pairs-local4.json"));
  auto& links = pairs["pairs"]["links"];
  std::string clean = sectionOf(page({doc("p.json", pairs)}), "pairs");
  EXPECT_EQ(countOf(clean, "<rect class=\"cell "), 2 * links.size());
  EXPECT_EQ(countOf(clean, " slow\" x="), 0u);
  EXPECT_EQ(attr(clean, "data-nodes"), std::to_string(pairs["pairs"]["nodes"].size()));
  // Node 3 made slow, as bench marks it: its links slow, it the suspect.
  for (auto& l : links)
    if (l["a"] == 3 || l["b"] == 3) {
      l["bw_gbps"] = 1.0;
      l["slow"] = true;
    }
  pairs["pairs"]["suspect_nodes"] = {{{"rank", 3}, {"host", "vm"}, {"slow_links", 3}, {"links", 3}}};
  std::string slow = sectionOf(page({doc("p.json", pairs)}), "pairs");
  EXPECT_EQ(countOf(slow, "<rect class=\"cell "), 2 * links.size());
  EXPECT_EQ(countOf(slow, " slow\" x="), 6u);                    // 3 links, both halves
  EXPECT_EQ(countOf(slow, "<rect class=\"cell h0 slow\""), 6u);  // 1 Gb/s: the darkest step
  EXPECT_EQ(countOf(slow, "class=\"suspect-band\""), 1u);
  EXPECT_NE(slow.find("\u25B2 r3"), std::string::npos);
  EXPECT_EQ(countOf(slow, "<tr class=\"bad\">"), 3u);  // the table lists them as slow
  std::string verdict = sectionOf(page({doc("p.json", pairs)}), "verdict");
  EXPECT_NE(verdict.find("data-verdict=\"fail\""), std::string::npos);
  EXPECT_NE(verdict.find("3 slow link(s) of 6; suspect node(s): r3 vm"), std::string::npos);
  EXPECT_NE(sectionOf(page({doc("p.json", readJson(reportFixture("bench-pairs-local4.json")))}), "verdict")
                .find("data-verdict=\"pass\""),
            std::string::npos);
}

// validate documents before and after the links became rows (core/pair_links.h):
// the committed netns run in the object form, and the same run rewritten as
// validate writes it now, draw the same matrix and the same verdict.
TEST(ReportPairs, ValidateLinksAsObjectsAndAsRowsDrawTheSameMatrix) {
  auto old_form = readJson(reportFixture("validate-netns-broken.json"));
  ASSERT_TRUE(old_form["pairs"].contains("links"));
  auto links = readPairLinks(old_form["pairs"]);
  ASSERT_TRUE(links);
  auto rows_form = old_form;
  auto& p = rows_form["pairs"];
  p["link_rows"] = encodeLinkRows(static_cast<int>(p["nodes"].size()), *links);
  p.erase("links");
  p.erase("rounds");
  std::string before = sectionOf(page({doc("v.json", old_form)}), "pairs");
  std::string after = sectionOf(page({doc("v.json", rows_form)}), "pairs");
  EXPECT_EQ(countOf(after, "<rect class=\"cell "), 12u);
  EXPECT_EQ(countOf(after, "<rect class=\"cell "), countOf(before, "<rect class=\"cell "));
  EXPECT_EQ(countOf(after, " slow\" x="), 6u);  // node4's 3 links, both halves
  EXPECT_EQ(countOf(after, " slow\" x="), countOf(before, " slow\" x="));
  EXPECT_EQ(countOf(after, "class=\"suspect-band\""), 1u);
  for (const auto& form : {old_form, rows_form}) {
    std::string verdict = sectionOf(page({doc("v.json", form)}), "verdict");
    EXPECT_NE(verdict.find("3 slow link(s) of 6; suspect node(s): r3 node4"), std::string::npos) << verdict;
  }
  p["link_rows"][1] = "7.8 fast";  // a hand-edited document: named, the page still made
  std::string broken = page({doc("v.json", rows_form)});
  EXPECT_NE(sectionOf(broken, "pairs")
                .find("link row 1: expected a non-negative Gb/s figure or &#39;-&#39; at field 2"),
            std::string::npos)
      << sectionOf(broken, "pairs");
  EXPECT_NE(sectionOf(broken, "verdict").find("v.json: pairs: link row 1"), std::string::npos);
}

TEST(ReportEscaping, HostileStringsFromEveryInputComeOutAsText) {
  const std::string evil = "<script>alert(1)</script>\"'&";
  auto v = readJson(reportFixture("validate-local4.json"));
  v["nodes"][0]["name"] = evil;
  v["nodes"][0]["findings"][0]["message"] = evil;
  v["nodes"][0]["findings"][0]["id"] = evil;
  v["pairs"]["nodes"][0]["host"] = evil;
  v["collectives"][0]["op"] = evil;
  v["outliers"] = {{{"attribute", evil},
                    {"host", evil},
                    {"value", evil},
                    {"majority_value", evil},
                    {"majority_count", 3}}};
  v["nodes"][1]["inventory"]["topology"]["gpu_nic"][0]["gpu"] = evil;
  nlohmann::json logs = {
      {"kind", "railkit.logs/v1"},
      {"railkit_version", evil},
      {"inputs", {{{"file", evil}, {"kind", "nccl-log"}, {"nccl_lines", 3}, {"hosts", {evil}}}}},
      {"findings",
       {{{"id", evil},
         {"severity", "error"},
         {"subject", evil},
         {"message", evil},
         {"evidence", {{{"source", evil}, {"line", 1}, {"text", evil}}}},
         {"fix", evil}}}}};
  std::string html = page({doc(evil, v), doc(evil, logs)}, evil);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("\"'&<"), std::string::npos);
  EXPECT_GT(countOf(html, "&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;"), 10u);
}

TEST(ReportLabels, SmallBandwidthsKeepThreeSignificantDigits) {
  EXPECT_EQ(report::label(31.889), "31.89");
  EXPECT_EQ(report::label(0.51), "0.51");
  EXPECT_EQ(report::label(0.012719), "0.0127");
  EXPECT_EQ(report::label(0), "0");
}

TEST(ReportEscaping, InvalidUtf8AndControlCharactersAreReplaced) {
  EXPECT_EQ(report::esc("a\xff"
                        "b"),
            "a\xEF\xBF\xBD"
            "b");
  EXPECT_EQ(report::esc("a\x01"
                        "b"),
            "a b");
  EXPECT_EQ(report::esc("\xC3\xA9"), "\xC3\xA9");  // valid UTF-8 kept
}

TEST(ReportInputs, EveryDocumentSaysWhatItIsAndUnknownKindsAreRefusedByName) {
  EXPECT_TRUE(report::documentFromJson("v.json", readJson(reportFixture("validate-local4.json"))));
  auto no_kind = report::documentFromJson("x.json", {{"nodes", 1}});
  ASSERT_FALSE(no_kind);
  EXPECT_NE(no_kind.error().message.find("x.json"), std::string::npos);
  auto explain = report::documentFromJson("e.json", {{"kind", "railkit.explain/v1"}});
  ASSERT_FALSE(explain);
  EXPECT_NE(explain.error().message.find("railkit.explain/v1"), std::string::npos);
  EXPECT_FALSE(report::documentFromJson("a.json", nlohmann::json::array()));
}

TEST(ReportInputs, ShapesOtherThanExpectedNeverStopThePage) {
  nlohmann::json odd = {{"kind", "railkit.validate/v1"},
                        {"nodes", {{{"name", 3}, {"findings", "x"}, {"counts", 1}}}},
                        {"pairs", {{"links", {{{"a", "x"}, {"b", 1e300}}}}, {"nodes", 7}}},
                        {"collectives", {{{"op", 1}, {"rows", {{{"size_bytes", "big"}}}}}}},
                        {"verdict", 5}};
  std::string html = page({doc("odd.json", odd)});
  EXPECT_NE(html.find("<section id=\"verdict\">"), std::string::npos);
  EXPECT_NE(html.find("</html>"), std::string::npos);
}

TEST(ReportTopology, OneMatrixPerDistinctTopologyWithTheNodesSharingIt) {
  auto v = readJson(reportFixture("validate-local4.json"));
  std::string same = sectionOf(page({doc("v.json", v)}), "topology");
  EXPECT_EQ(countOf(same, "<table class=\"topo\">"), 1u);
  EXPECT_NE(same.find("4 node(s)"), std::string::npos);
  v["nodes"][2]["inventory"]["topology"]["gpu_nic"][0]["distance"] = "SYS";
  std::string two = sectionOf(page({doc("v.json", v)}), "topology");
  EXPECT_EQ(countOf(two, "<table class=\"topo\">"), 2u);
  EXPECT_NE(two.find("3 node(s)"), std::string::npos);
  EXPECT_NE(two.find("1 node(s)"), std::string::npos);
  EXPECT_EQ(countOf(two, "<td class=\"d0\">PIX</td>"), 8u + 7u);
}

// The netns run: node2's port down, node3's firmware, node4 slow; each shown
// where it belongs.
TEST(ReportFleet, TheNetnsBrokenRunNamesEachFaultWhereItBelongs) {
  auto v = readJson(reportFixture("validate-netns-broken.json"));
  std::string html = page({doc("v.json", v)});
  std::string fleet = sectionOf(html, "fleet");
  std::set<std::string> ids = {"outlier", "links: suspect node"};
  for (const auto& n : v["nodes"])
    for (const auto& f : n["findings"]) ids.insert(f["id"].get<std::string>());
  EXPECT_EQ(countOf(fleet, "<th class=\"check\">"), ids.size()) << fleet;
  EXPECT_NE(
      fleet.find("<td>node3</td><td>mlx5_2 firmware</td><td>28.36.1010</td><td>28.39.1002 (3 nodes)</td>"),
      std::string::npos);
  EXPECT_EQ(countOf(fleet, "<tr><td>node"),
            4u + 1u);  // four grid rows (node1 passes, the others each fail their way), one outlier
  EXPECT_EQ(countOf(fleet, "<td class=\"error\""), 3u);
  std::string pairs = sectionOf(html, "pairs");
  EXPECT_NE(pairs.find("<b>r3</b> node4 198.18.20.14"), std::string::npos);
  EXPECT_EQ(countOf(pairs, " slow\" x="), 6u);
  std::string verdict = sectionOf(html, "verdict");
  EXPECT_NE(verdict.find("28.36.1010 on this node; the majority (3 nodes) has 28.39.1002"),
            std::string::npos);
  EXPECT_NE(verdict.find("3 slow link(s) of 6; suspect node(s): r3 node4"), std::string::npos);
}

TEST(ReportVerdict, FindingsAreGroupedAcrossNodesWithTheirFix) {
  auto v = readJson(reportFixture("validate-local4.json"));
  std::string html = sectionOf(page({doc("v.json", v)}), "verdict");
  EXPECT_NE(html.find("data-verdict=\"fail\""), std::string::npos);
  EXPECT_NE(html.find("4 of 4 nodes"), std::string::npos);
  EXPECT_NE(html.find("memlock-limit"), std::string::npos);
  EXPECT_NE(html.find("RLIMIT_MEMLOCK unlimited"), std::string::npos);  // the fix
  EXPECT_EQ(html.find("[memlock-limit]"), std::string::npos);  // validate's failure lines are not repeated
  // Errors come before warnings.
  EXPECT_LT(html.find("<span class=\"sev error\">"), html.find("<span class=\"sev warning\">"));
}

// doctor --json on each node: every document says "root": "/", so a node
// is its file; the fleet has one row group and the verdict counts 3 nodes.
TEST(ReportVerdict, DoctorDocumentsOfManyNodesAreGroupedByFile) {
  nlohmann::json d = {{"kind", "railkit.doctor/v1"},
                      {"railkit_version", "0.1.0"},
                      {"root", "/"},
                      {"findings",
                       {{{"id", "memlock-limit"},
                         {"severity", "error"},
                         {"subject", "process"},
                         {"message", "m"},
                         {"evidence", nlohmann::json::array()},
                         {"fix", "f"}}}}};
  nlohmann::json clean = d;
  clean["findings"] = nlohmann::json::array();
  std::string html = page({doc("node1.json", d), doc("node2.json", d), doc("node3.json", clean)});
  EXPECT_NE(sectionOf(html, "verdict").find("2 of 3 nodes"), std::string::npos);
  std::string fleet = sectionOf(html, "fleet");
  EXPECT_NE(fleet.find("<b>2 nodes</b>: node1.json, node2.json"), std::string::npos);
  EXPECT_NE(fleet.find("<td>node3.json</td>"), std::string::npos);
}

// Text inputs of one invocation are one job (a file per rank): a row each,
// the job's combined facts, and every finding with its evidence lines.
TEST(ReportLogs, NcclLogsArePerInputThenTheJobWithFindingsAndEvidence) {
  RAILKIT_REQUIRE_SHARED();
  auto dir = sharedDir() / "data" / "nccl-logs";
  auto loaded = report::loadInputs({(dir / "027.log").string(), (dir / "036.log").string()});
  ASSERT_TRUE(loaded.errors.empty()) << loaded.errors.front().message;
  ASSERT_EQ(loaded.documents.size(), 1u);
  std::string html = sectionOf(page(loaded.documents), "logs");
  EXPECT_NE(html.find("<th>the job (2 inputs)</th>"), std::string::npos);
  EXPECT_EQ(countOf(html, "<tr><td>" + (dir / "0").string()), 2u);
  const auto& findings = loaded.documents[0].json["findings"];
  ASSERT_FALSE(findings.empty());
  for (const auto& f : findings) {
    EXPECT_NE(html.find("<code>" + f["id"].get<std::string>() + "</code>"), std::string::npos) << f["id"];
    if (!f["evidence"].empty()) {
      EXPECT_NE(html.find(report::esc(f["evidence"][0]["text"].get<std::string>())), std::string::npos)
          << f["id"];
    }
  }
}

TEST(ReportLogs, AnNcclTestsTableIsReadByTheLogsReaderAndDrawn) {
  RAILKIT_REQUIRE_SHARED();
  std::string seed;
  for (const auto& e : std::filesystem::directory_iterator(sharedDir() / "seeds"))
    if (e.path().filename().string().rfind("001", 0) == 0) seed = e.path().string();
  ASSERT_FALSE(seed.empty()) << "seed 001 not found under ../shared/seeds";
  auto loaded = report::loadInputs({seed});
  ASSERT_TRUE(loaded.errors.empty()) << loaded.errors.front().message;
  ASSERT_EQ(loaded.documents.size(), 1u);
  EXPECT_EQ(loaded.documents[0].kind, "railkit.logs/v1");
  const auto& input = loaded.documents[0].json["inputs"][0];
  size_t rows = input["rows"].size();
  ASSERT_GT(rows, 0u);
  std::string html = sectionOf(page(loaded.documents), "busbw");
  EXPECT_EQ(attr(html, "data-points"), std::to_string(rows));
  EXPECT_NE(html.find("avg bus bandwidth " + report::label(input["avg_busbw_gbs"].get<double>())),
            std::string::npos);
  EXPECT_NE(html.find("peak " + report::label(input["peak_busbw_gbs"].get<double>())), std::string::npos);
}

}  // namespace
}  // namespace railkit::testing
