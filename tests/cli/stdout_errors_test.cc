// StdoutWithErrors keeps why the first write to stdout failed. Each case runs
// in a child process (a death test) whose stdout is /dev/full, so a write
// fails with ENOSPC and gtest's own output is not touched.
#include "cli/stdout_errors.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>

namespace railkit::cli {
namespace {

// A result far larger than stdio's buffer: glibc's write fails inside
// fwrite, and the fflush after it has nothing left to write.
void printLargeResultThenTouchErrno() {
  std::string result(1 << 20, 'x');
  std::cout << result;
  errno = ENOENT;  // any later call (an open of a missing file) sets errno
  std::cout.flush();
}

TEST(CliStdoutErrors, KeepsTheReasonOfTheFirstFailedWrite) {
  if (!std::filesystem::exists("/dev/full")) GTEST_SKIP() << "no /dev/full here";
  EXPECT_EXIT(
      {
        if (std::freopen("/dev/full", "w", stdout) == nullptr) std::_Exit(90);
        int reason = 0;
        {
          StdoutErrorsScope scope;
          printLargeResultThenTouchErrno();
          reason = stdoutWriteErrno();
        }
        std::_Exit(reason == ENOSPC ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

// What the scope is for: without it, errno after the last flush no longer
// says why the output was lost.
TEST(CliStdoutErrors, WithoutTheScopeErrnoNoLongerSaysWhy) {
  if (!std::filesystem::exists("/dev/full")) GTEST_SKIP() << "no /dev/full here";
  EXPECT_EXIT(
      {
        if (std::freopen("/dev/full", "w", stdout) == nullptr) std::_Exit(90);
        printLargeResultThenTouchErrno();
        bool failed = std::ferror(stdout) != 0;
        std::_Exit(failed && stdoutWriteErrno() == ENOENT ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(CliStdoutErrors, NoErrorWhileWritesSucceed) {
  EXPECT_EXIT(
      {
        if (std::freopen("/dev/null", "w", stdout) == nullptr) std::_Exit(90);
        int reason = -1;
        {
          StdoutErrorsScope scope;
          std::cout << std::string(1 << 20, 'x') << 'y' << std::flush;
          reason = stdoutWriteErrno();
        }
        std::_Exit(reason == 0 && std::cout.good() ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace railkit::cli
