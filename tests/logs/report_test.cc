// The job report of several inputs: the inputs' documents made beside the
// job's combine (on a second thread) are the ones made afterwards.
#include "logs/report.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "logs/input.h"
#include "nccl_log_test_util.h"
#include "support/test_support.h"

namespace railkit::logs {
namespace {

// The document both ways: inputs' documents made at combine time and taken
// over, and made when the document is.
void expectSameDocuments(const std::vector<std::pair<std::string, std::string>>& texts) {
  auto analyzed = [&] {
    std::vector<InputReport> inputs;
    for (const auto& [name, text] : texts) inputs.push_back(analyzeText(name, text));
    return inputs;
  };
  LogsReport early = combineInputs(analyzed(), InputDocuments::kNow);
  ASSERT_EQ(early.input_documents.size(), texts.size());
  LogsReport late = combineInputs(analyzed());
  EXPECT_TRUE(late.input_documents.empty());
  nlohmann::json from_late = reportToJson(late);
  EXPECT_EQ(reportToJson(early), from_late);  // a copy of what was made early
  nlohmann::json taken = takeReportJson(early);
  EXPECT_TRUE(early.input_documents.empty());
  EXPECT_EQ(taken, from_late);
  ASSERT_TRUE(taken["inputs"].is_array());
  EXPECT_EQ(taken["inputs"].size(), texts.size());
}

TEST(LogsReport, InputDocumentsMadeBesideTheCombineAreTheSame) {
  expectSameDocuments({
      {"rank0.log",
       "w0:1:1 [0] NCCL INFO NCCL version 2.19.3+cuda12.3\n"
       "w0:1:1 [0] NCCL INFO Using network IB\n"
       "w0:1:3 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/IB/0\n"},
      {"rank1.log",
       "w1:2:2 [0] NCCL INFO NCCL version 2.18.1+cuda12.2\n"
       "w1:2:2 [0] NCCL INFO Using network Socket\n"
       "w1:2:2 [0] transport/net_socket.cc:1 NCCL WARN NET/Socket : peer closed the connection\n"},
      {"empty.log", ""},
  });
}

TEST(LogsReport, SharedInputsAsOneJobGiveTheSameDocumentBothWays) {
  RAILKIT_REQUIRE_SHARED();
  std::vector<std::pair<std::string, std::string>> texts;
  for (const char* dir : {"nccl-logs", "nccl-tests", "perftest"}) {
    std::filesystem::path path = railkit::testing::sharedDir() / "data" / dir;
    if (!std::filesystem::is_directory(path)) continue;
    for (const auto& entry : std::filesystem::directory_iterator(path))
      texts.emplace_back(entry.path().string(), testutil::readFile(entry.path().string()));
  }
  ASSERT_GT(texts.size(), 30u);
  expectSameDocuments(texts);
}

}  // namespace
}  // namespace railkit::logs
