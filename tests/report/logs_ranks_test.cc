// The NCCL logs section's per-rank table, read back from pages of real NCCL
// logs (../shared/data/nccl-logs; skipped when ../shared is absent): a row
// per rank with what its lines say, and past 64 ranks identical ranks
// grouped so a large job stays a short table.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <regex>

#include "report/html.h"
#include "report/inputs.h"
#include "report/sections.h"
#include "report_test_util.h"

namespace railkit::testing {
namespace {

std::filesystem::path ncclLog(const std::string& name) {
  return sharedDir() / "data" / "nccl-logs" / name;
}

std::string readText(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The <tr ...>...</tr> that starts with `open`, "" when absent.
std::string rowOf(const std::string& html, const std::string& open) {
  size_t at = html.find(open);
  if (at == std::string::npos) return "";
  return html.substr(at, html.find("</tr>", at) - at);
}

// The NCCL lines of 037.log (one process, 4 GPUs, ranks 0-3 of 8) copied onto `hosts` hosts:
// every copy renamed and renumbered as the next 4 ranks of one bigger job,
// the lines themselves as NCCL printed them.
std::string manyHosts(size_t hosts) {
  // Its NCCL lines only: the nccl-tests table would repeat once per copy.
  std::string log;
  std::istringstream lines(readText(ncclLog("037.log")));
  for (std::string line; std::getline(lines, line);)
    if (line.find(" NCCL INFO ") != std::string::npos) log += line + "\n";
  const size_t nranks = hosts * 4;
  std::string out;
  for (size_t h = 0; h < hosts; ++h) {
    std::string copy = std::regex_replace(log, std::regex("MOC-R4PCC04U37:574629"),
                                          "node" + std::to_string(h) + ":" + std::to_string(1000 + h));
    std::string renumbered;
    std::regex rank(" rank (\\d+) nranks 8");
    auto begin = std::sregex_iterator(copy.begin(), copy.end(), rank);
    size_t last = 0;
    for (auto it = begin; it != std::sregex_iterator(); ++it) {
      renumbered += copy.substr(last, it->position() - last);
      renumbered +=
          " rank " + std::to_string(std::stoul((*it)[1]) + 4 * h) + " nranks " + std::to_string(nranks);
      last = it->position() + it->length();
    }
    out += renumbered + copy.substr(last);
  }
  return out;
}

// A scratch file of this test process (cases of one binary run in turn).
std::string scratchLog(const std::string& name, const std::string& text) {
  auto path = std::filesystem::temp_directory_path() /
              ("railkit-report-ranks-" + std::to_string(::getpid()) + "-" + name);
  std::ofstream(path, std::ios::binary) << text;
  return path.string();
}

report::Document logsDocument(const std::string& path) {
  auto loaded = report::loadInputs({path});
  EXPECT_TRUE(loaded.errors.empty()) << (loaded.errors.empty() ? "" : loaded.errors.front().message);
  EXPECT_EQ(loaded.documents.size(), 1u);
  return loaded.documents.empty() ? report::Document{} : loaded.documents.front();
}

TEST(ReportLogsRanks, ARowPerRankWithWhatItsLinesSay) {
  RAILKIT_REQUIRE_SHARED();
  auto document = logsDocument(ncclLog("037.log").string());
  const auto& ranks = document.json["job"]["per_rank"];
  ASSERT_EQ(ranks.size(), 4u);
  std::string html = sectionOf(page({document}), "logs");
  EXPECT_EQ(countOf(html, "<tr data-rank=\""), ranks.size());
  EXPECT_EQ(countOf(html, "<tr data-ranks=\""), 0u);
  for (const auto& r : ranks) {
    std::string row = rowOf(html, "<tr data-rank=\"" + std::to_string(r["rank"].get<int>()) + "\">");
    ASSERT_FALSE(row.empty()) << r.dump();
    EXPECT_NE(row.find(r["host"].get<std::string>() + ":" + std::to_string(r["pid"].get<int>())),
              std::string::npos);
    std::string bus = "(";
    bus.append(r["bus_id"].get<std::string>()).append(")");
    EXPECT_NE(row.find(bus), std::string::npos) << row;
    EXPECT_NE(row.find("<td>mlx5_5</td>"), std::string::npos) << row;
    if (r["transport"].is_string()) {
      std::string cell = "<td>";
      cell.append(r["transport"].get<std::string>()).append("</td>");
      EXPECT_NE(row.find(cell), std::string::npos) << row;
      EXPECT_NE(row.find("<td>yes</td>"), std::string::npos) << row;  // GDRDMA on its NET channels
      EXPECT_NE(row.find("NET " + std::to_string(r["channels"]["NET"].get<int>())), std::string::npos) << row;
    } else {
      EXPECT_NE(row.find("local only (P2P/SHM)"), std::string::npos) << row;
      EXPECT_NE(row.find("P2P " + std::to_string(r["channels"]["P2P"].get<int>())), std::string::npos) << row;
    }
  }
}

// Several text inputs are one job: its table holds the ranks of every file.
TEST(ReportLogsRanks, TheJobTableHoldsEveryInputsRanks) {
  RAILKIT_REQUIRE_SHARED();
  auto loaded = report::loadInputs({ncclLog("017.log").string(), ncclLog("036.log").string()});
  ASSERT_EQ(loaded.documents.size(), 1u);
  const auto& json = loaded.documents[0].json;
  size_t per_input = 0;
  for (const auto& in : json["inputs"]) per_input += in["per_rank"].size();
  ASSERT_GE(per_input, 2u);
  EXPECT_EQ(json["job"]["per_rank"].size(), per_input);
  std::string html = sectionOf(page(loaded.documents), "logs");
  EXPECT_EQ(countOf(html, "<tr data-rank=\""), per_input);
  EXPECT_NE(html.find(">gpu2-ru7:"), std::string::npos);               // 017's host
  EXPECT_NE(html.find(">MOC-R4PCC04U37:"), std::string::npos);         // 036's
  EXPECT_NE(html.find("<b class=\"bad\">no</b>"), std::string::npos);  // 036 ran NET/IB without GDR
}

// 128 ranks on 32 hosts: two kinds of rank (with NET/IB GDR channels, local
// only), so two grouped rows that add up to every rank.
TEST(ReportLogsRanks, PastSixtyFourRanksIdenticalRanksAreGrouped) {
  RAILKIT_REQUIRE_SHARED();
  auto path = scratchLog("128.log", manyHosts(32));
  auto document = logsDocument(path);
  ASSERT_EQ(document.json["job"]["per_rank"].size(), 128u);
  std::string html = sectionOf(page({document}), "logs");
  EXPECT_EQ(countOf(html, "<tr data-rank=\""), 0u);
  ASSERT_EQ(countOf(html, "<tr data-ranks=\""), 2u);
  EXPECT_EQ(attr(html, "data-ranks"), "64");
  EXPECT_EQ(attr(html, "data-ranks", html.find("<tr data-ranks=") + 1), "64");
  std::string net = rowOf(html, "<tr data-ranks=\"64\"><td>ranks 0, 3-4,");
  ASSERT_FALSE(net.empty()) << html.substr(0, 3000);
  EXPECT_NE(net.find("32 host(s): node0, node1, node10, ..."), std::string::npos) << net;
  EXPECT_NE(net.find("<td>NET/IB</td>"), std::string::npos);
  EXPECT_NE(net.find("<td>yes</td>"), std::string::npos);
  EXPECT_NE(net.find("NET 128"), std::string::npos) << net;  // 2 NET channels x 64 ranks
  std::filesystem::remove(path);
}

// A job larger than the ranks kept: the page says how many were not kept
// and stays small.
TEST(ReportLogsRanks, ACappedJobSaysSoAndThePageStaysSmall) {
  RAILKIT_REQUIRE_SHARED();
  auto path = scratchLog("5000.log", manyHosts(1250));
  auto document = logsDocument(path);
  ASSERT_EQ(document.json["job"]["per_rank"].size(), 4096u);
  EXPECT_EQ(document.json["job"]["per_rank_not_kept"], 5000 - 4096);
  std::string full = page({document});
  std::string html = sectionOf(full, "logs");
  EXPECT_NE(html.find("4096 rank(s) with lines of their own; 904 more not kept"), std::string::npos);
  EXPECT_LE(countOf(html, "<tr data-ranks=\""), report::kRankGroupsMax);
  EXPECT_LT(full.size(), 200u * 1024);
  std::filesystem::remove(path);
}

// Sockets between nodes and no GPUDirect RDMA are what a reader looks for:
// both in the error colour, a rank on two networks included.
TEST(ReportLogsRanks, SocketTransportAndNoGdrStandOut) {
  auto r = [](int rank, const char* transport, bool gdr) {
    return nlohmann::json{{"rank", rank},
                          {"host", "h"},
                          {"pid", 1},
                          {"dev", rank},
                          {"transport", transport},
                          {"nics", nlohmann::json::array()},
                          {"gdr", gdr},
                          {"channels", {{"NET", 2}}}};
  };
  nlohmann::json logs = {{"kind", "railkit.logs/v1"},
                         {"inputs", {{{"file", "a.log"}, {"kind", "nccl-log"}, {"nccl_lines", 1}}}},
                         {"job", {{"per_rank", {r(0, "NET/IB", true), r(1, "NET/IB+NET/Socket", false)}}}}};
  std::string html = sectionOf(page({doc("a.json", logs)}), "logs");
  std::string ok = rowOf(html, "<tr data-rank=\"0\">"), odd = rowOf(html, "<tr data-rank=\"1\">");
  EXPECT_NE(ok.find("<td>NET/IB</td>"), std::string::npos) << ok;
  EXPECT_EQ(ok.find("class=\"bad\""), std::string::npos) << ok;
  EXPECT_NE(odd.find("<b class=\"bad\">NET/IB+NET/Socket</b>"), std::string::npos) << odd;
  EXPECT_NE(odd.find("<b class=\"bad\">no</b>"), std::string::npos) << odd;
}

TEST(ReportLogsRanks, HostileValuesAreEscaped) {
  nlohmann::json rank = {{"rank", 0},    {"host", "<script>h</script>"}, {"pid", 1},
                         {"dev", 0},     {"transport", "NET/<b>"},       {"nics", {"mlx5_0\"><x"}},
                         {"gdr", "yes"}, {"channels", {{"NET", "x"}}}};
  nlohmann::json logs = {{"kind", "railkit.logs/v1"},
                         {"inputs", {{{"file", "a.log"}, {"kind", "nccl-log"}, {"nccl_lines", 1}}}},
                         {"job", {{"per_rank", {rank}}, {"per_rank_not_kept", "many"}}}};
  std::string html = sectionOf(page({doc("a.json", logs)}), "logs");
  ASSERT_NE(html.find("<tr data-rank=\"0\">"), std::string::npos);
  EXPECT_EQ(html.find("<script>"), std::string::npos);
  EXPECT_EQ(html.find("<b>"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;h&lt;/script&gt;"), std::string::npos);
  EXPECT_EQ(html.find("mlx5_0\">"), std::string::npos);
}

}  // namespace
}  // namespace railkit::testing
