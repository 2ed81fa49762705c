#pragma once
// Two renders of one profile that differ only in test.tool (railkit,
// nccl-tests, perftest) must run the same pods with the same env and the same
// command line around the test: the planned commands may differ only in one
// run of words that starts with the test's binary and holds its flags (no
// shell operator, no new line). Anything else is a difference in how the job
// is launched, and only one of the two would have been proven by the runner.
#include <string>

#include "core/result.h"
#include "resolve.h"

namespace railkit::podrun {

// Ok with one line per container that differs ("pod/container: A -> B");
// an error naming the first difference otherwise.
Result<std::string> compareCommands(const Plan& reference, const Plan& other);

// The same for two words lists (argv, or a shell script split into words).
Result<std::string> compareWords(const std::vector<std::string>& a, const std::vector<std::string>& b);

// The same for two scripts' words: one run as compareWords does, or, when the
// scripts have as many lines and the binary appears on several of them
// (perftest's server and client lines, its error messages), one run per line
// that differs, each starting with the same swap of one word for another
// (quotes and a trailing ':' aside). Any other line that differs is an error.
Result<std::string> compareScriptWords(const std::vector<std::string>& a, const std::vector<std::string>& b);

// Splits a shell script into words: blanks separate, a new line is a word of
// its own ("\n"), a backslash-newline joins lines.
std::vector<std::string> scriptWords(const std::string& script);

}  // namespace railkit::podrun
