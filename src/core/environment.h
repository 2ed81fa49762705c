#pragma once
// The process environment, read once by main and passed down: nothing below
// the CLI calls getenv. Also parses /proc/<pid>/environ (NUL-separated).

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace railkit {

using Environment = std::map<std::string, std::string, std::less<>>;

Environment environmentFromEnvp(char** envp);
// "A=1\0B=2\0": entries without '=' are skipped.
Environment parseEnviron(std::string_view data);
std::optional<std::string> lookup(const Environment& env, std::string_view name);

}  // namespace railkit
