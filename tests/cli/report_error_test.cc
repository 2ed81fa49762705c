// The one place an Error becomes a line on stderr and an exit status
// (src/cli/common.cc): the status follows the error code, and an internal
// error says it is railkit's bug instead of blaming the user's input.
#include <gtest/gtest.h>

#include "cli/command.h"

namespace railkit::cli {
namespace {

int statusOf(ErrorCode code, std::string* line) {
  ::testing::internal::CaptureStderr();
  int status = reportError(Error{code, "what happened"});
  *line = ::testing::internal::GetCapturedStderr();
  return status;
}

TEST(CliReportError, StatusFollowsTheCode) {
  std::string line;
  EXPECT_EQ(statusOf(ErrorCode::kUsage, &line), kExitUsage);
  EXPECT_EQ(line, "railkit: what happened\n");
  EXPECT_EQ(statusOf(ErrorCode::kInvalidInput, &line), kExitUsage);
  EXPECT_EQ(statusOf(ErrorCode::kNotFound, &line), kExitUsage);
  EXPECT_EQ(statusOf(ErrorCode::kTimeout, &line), kExitIncomplete);
  EXPECT_EQ(statusOf(ErrorCode::kPeerLost, &line), kExitIncomplete);
}

TEST(CliReportError, InternalErrorIsOursNotUsage) {
  std::string line;
  EXPECT_EQ(statusOf(ErrorCode::kInternal, &line), kExitInternal);
  EXPECT_NE(kExitInternal, kExitUsage);
  EXPECT_EQ(line, "railkit: internal error (a railkit bug, please report it): what happened\n");
}

}  // namespace
}  // namespace railkit::cli
