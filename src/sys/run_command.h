#pragma once
// Runs a diagnostic program of the machine (ibnetdiscover, sminfo) and takes
// what it prints, for commands that read the fabric where its tools are
// installed. The program is found in the PATH given (the environment read
// once by main, which the program also gets: LD_PRELOAD tools such as
// ibsim-run reach it through that), runs with stdin at end of file, its stdout captured up to a
// cap and its stderr kept for the error message; past the deadline it is
// killed. Errors are values: kNotFound when the program is not installed,
// kTimeout, kIo when it failed (its exit status and the last line of its
// stderr).

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

#include "core/environment.h"
#include "core/result.h"

namespace railkit::sys {

struct CommandOptions {
  const Environment* env = nullptr;  // the program's environment, and the PATH searched; null: empty
  std::chrono::milliseconds timeout{std::chrono::seconds(120)};
  std::size_t max_stdout = std::size_t{256} << 20;
};

Result<std::string> runCommand(const std::vector<std::string>& argv, const CommandOptions& options);

}  // namespace railkit::sys
