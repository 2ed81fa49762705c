#include "k8s/lint/rules/mpi_launcher.h"

#include "core/strings.h"

namespace railkit::k8s::rules {
namespace {
std::vector<std::string> words(const std::string& command) {
  std::vector<std::string> out;
  for (std::string_view word : splitWhitespace(command)) {
    std::string text(word);
    while (!text.empty() && (text.back() == '\\' || text.back() == ';' || text.back() == '"')) text.pop_back();
    while (!text.empty() && text.front() == '"') text.erase(0, 1);
    if (!text.empty()) out.push_back(text);
  }
  return out;
}
}  // namespace

std::vector<std::string> forwardedNames(const std::string& command) {
  std::vector<std::string> out;
  auto list = words(command);
  for (size_t i = 0; i + 1 < list.size(); ++i)
    if (list[i] == "-x") out.push_back(list[i + 1].substr(0, list[i + 1].find('=')));
  return out;
}

std::vector<std::pair<std::string, std::string>> mcaParams(const std::string& command) {
  std::vector<std::pair<std::string, std::string>> out;
  auto list = words(command);
  for (size_t i = 0; i + 2 < list.size(); ++i)
    if (list[i] == "--mca" || list[i] == "-mca") out.emplace_back(list[i + 1], list[i + 2]);
  return out;
}

}  // namespace railkit::k8s::rules
