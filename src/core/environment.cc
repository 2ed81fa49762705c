#include "core/environment.h"

namespace railkit {

namespace {
void addEntry(Environment& env, std::string_view entry) {
  auto eq = entry.find('=');
  if (eq == std::string_view::npos || eq == 0) return;
  env.emplace(std::string(entry.substr(0, eq)), std::string(entry.substr(eq + 1)));
}
}  // namespace

Environment environmentFromEnvp(char** envp) {
  Environment env;
  for (char** p = envp; p && *p; ++p) addEntry(env, *p);
  return env;
}

Environment parseEnviron(std::string_view data) {
  Environment env;
  size_t start = 0;
  for (size_t i = 0; i <= data.size(); ++i) {
    if (i == data.size() || data[i] == '\0') {
      if (i > start) addEntry(env, data.substr(start, i - start));
      start = i + 1;
    }
  }
  return env;
}

std::optional<std::string> lookup(const Environment& env, std::string_view name) {
  auto it = env.find(name);
  if (it == env.end()) return std::nullopt;
  return it->second;
}

}  // namespace railkit
