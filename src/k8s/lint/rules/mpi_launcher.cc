#include "k8s/lint/rules/mpi_launcher.h"

#include "core/strings.h"

namespace railkit::k8s::rules {
namespace {
std::vector<std::string> words(const std::string& command) {
  std::vector<std::string> out;
  // A script's lines end words too (splitWhitespace splits at blanks only).
  std::string flat = command;
  for (char& c : flat)
    if (c == '\n' || c == '\r') c = ' ';
  for (std::string_view word : splitWhitespace(flat)) {
    std::string text(word);
    while (!text.empty() && (text.back() == '\\' || text.back() == ';' || text.back() == '"'))
      text.pop_back();
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

std::vector<std::pair<std::string, std::optional<std::string>>> forwardedVars(const std::string& command) {
  std::vector<std::pair<std::string, std::optional<std::string>>> out;
  auto list = words(command);
  for (size_t i = 0; i + 1 < list.size(); ++i) {
    if (list[i] != "-x") continue;
    const std::string& arg = list[i + 1];
    auto eq = arg.find('=');
    if (eq == std::string::npos)
      out.emplace_back(arg, std::nullopt);
    else
      out.emplace_back(arg.substr(0, eq), arg.substr(eq + 1));
  }
  return out;
}

std::optional<std::string> forwardedValue(const ContainerFacts& launcher, const std::string& name) {
  std::optional<std::string> value;
  for (const auto& [forwarded, given] : forwardedVars(launcher.command)) {
    if (forwarded != name) continue;
    if (given) {
      value = given;
    } else if (auto exported = assignedInScript(launcher.command, name)) {
      value = exported;  // `export NAME=value` earlier in the launcher's script
    } else if (auto env = launcher.env.find(name); env != launcher.env.end()) {
      value = env->second;
    }
  }
  return value;
}

std::optional<std::string> assignedInScript(const std::string& command, const std::string& name) {
  std::optional<std::string> value;
  const std::string prefix = name + "=";
  for (const std::string& word : words(command))
    if (word.rfind(prefix, 0) == 0) value = word.substr(prefix.size());
  return value;
}

std::optional<std::string> valueFromLauncher(const std::vector<PodFacts>& pods, const PodFacts& worker,
                                             const std::string& name) {
  if (worker.view.role != "Worker") return std::nullopt;
  for (const PodFacts& launcher : pods)
    if (launcher.view.object == worker.view.object && launcher.view.role == "Launcher")
      for (const ContainerFacts& container : launcher.containers)
        if (auto value = forwardedValue(container, name)) return value;
  return std::nullopt;
}

std::vector<std::pair<std::string, std::string>> mcaParams(const std::string& command) {
  std::vector<std::pair<std::string, std::string>> out;
  auto list = words(command);
  for (size_t i = 0; i + 2 < list.size(); ++i)
    if (list[i] == "--mca" || list[i] == "-mca") out.emplace_back(list[i + 1], list[i + 2]);
  return out;
}

}  // namespace railkit::k8s::rules
