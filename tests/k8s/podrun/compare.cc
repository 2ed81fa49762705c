#include "compare.h"

#include <algorithm>

namespace railkit::podrun {
namespace {

std::string joined(const std::vector<std::string>& words, size_t begin, size_t end) {
  std::string out;
  for (size_t i = begin; i < end; ++i)
    out += (out.empty() ? "" : " ") + (words[i] == "\n" ? std::string("\\n") : words[i]);
  return out;
}

bool isShellOperator(const std::string& word) {
  return word == "\n" || word.find_first_of(";|&<>`") != std::string::npos || word == "then" ||
         word == "else" || word == "fi" || word == "do" || word == "done";
}

bool isShellScript(const std::vector<std::string>& argv) {
  if (argv.size() != 3 || argv[1] != "-c") return false;
  std::string shell = argv[0].substr(argv[0].rfind('/') + 1);
  return shell == "sh" || shell == "bash";
}

std::vector<std::vector<std::string>> lines(const std::vector<std::string>& words) {
  std::vector<std::vector<std::string>> out(1);
  for (const auto& word : words) {
    if (word == "\n")
      out.emplace_back();
    else
      out.back().push_back(word);
  }
  return out;
}

// A word as a binary's name: without the quotes or the ':' an error message
// puts around it.
std::string bareWord(const std::string& word) {
  size_t begin = word.find_first_not_of("\"'");
  size_t end = word.find_last_not_of("\"':");
  return begin == std::string::npos ? std::string() : word.substr(begin, end - begin + 1);
}

}  // namespace

std::vector<std::string> scriptWords(const std::string& script) {
  std::vector<std::string> words;
  std::string word;
  auto flush = [&] {
    if (!word.empty()) words.push_back(word);
    word.clear();
  };
  for (size_t i = 0; i < script.size(); ++i) {
    char c = script[i];
    if (c == '\\' && i + 1 < script.size() && script[i + 1] == '\n') {
      flush();
      ++i;
    } else if (c == ' ' || c == '\t') {
      flush();
    } else if (c == '\n') {
      flush();
      words.push_back("\n");
    } else {
      word += c;
    }
  }
  flush();
  return words;
}

Result<std::string> compareWords(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  if (a == b) return std::string();
  size_t prefix = 0;
  while (prefix < a.size() && prefix < b.size() && a[prefix] == b[prefix]) ++prefix;
  size_t suffix = 0;
  while (suffix < a.size() - prefix && suffix < b.size() - prefix &&
         a[a.size() - 1 - suffix] == b[b.size() - 1 - suffix])
    ++suffix;
  size_t a_end = a.size() - suffix, b_end = b.size() - suffix;
  std::string a_mid = joined(a, prefix, a_end), b_mid = joined(b, prefix, b_end);
  std::string what = "'" + a_mid + "' -> '" + b_mid + "'";
  if (prefix == a_end || prefix == b_end)
    return makeError(ErrorCode::kInvalidInput,
                     "the commands differ by words added or removed, not by a binary: " + what);
  for (const auto* side : {&a, &b}) {
    size_t end = side == &a ? a_end : b_end;
    if ((*side)[prefix].front() == '-')
      return makeError(ErrorCode::kInvalidInput, "the commands differ in flags before the binary: " + what);
    for (size_t i = prefix; i < end; ++i)
      if (isShellOperator((*side)[i]))
        return makeError(ErrorCode::kInvalidInput,
                         "the commands differ beyond the binary and its flags ('" +
                             ((*side)[i] == "\n" ? std::string("\\n") : (*side)[i]) +
                             "' in the difference): " + what);
  }
  return what;
}

Result<std::string> compareScriptWords(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  auto whole = compareWords(a, b);
  if (whole) return whole;
  auto a_lines = lines(a), b_lines = lines(b);
  if (a_lines.size() != b_lines.size()) return whole;
  std::string report, swap;
  for (size_t i = 0; i < a_lines.size(); ++i) {
    const auto& la = a_lines[i];
    const auto& lb = b_lines[i];
    if (la == lb) continue;
    auto diff = compareWords(la, lb);
    if (!diff) return tl::unexpected(diff.error().withContext("line " + std::to_string(i + 1)));
    size_t first = 0;
    while (first < la.size() && first < lb.size() && la[first] == lb[first]) ++first;
    std::string this_swap = bareWord(la[first]) + " -> " + bareWord(lb[first]);
    if (swap.empty()) swap = this_swap;
    if (this_swap != swap)
      return makeError(ErrorCode::kInvalidInput, "line " + std::to_string(i + 1) + " swaps " + this_swap +
                                                     ", another line " + swap + ": " + *diff);
    report += (report.empty() ? "" : "; ") + *diff;
  }
  return report;
}

Result<std::string> compareCommands(const Plan& reference, const Plan& other) {
  if (reference.pods.size() != other.pods.size())
    return makeError(ErrorCode::kInvalidInput, std::to_string(reference.pods.size()) + " pods against " +
                                                   std::to_string(other.pods.size()));
  std::string report;
  for (size_t p = 0; p < reference.pods.size(); ++p) {
    const ResolvedPod& a = reference.pods[p];
    const ResolvedPod& b = other.pods[p];
    if (a.pod.name != b.pod.name || a.containers.size() != b.containers.size())
      return makeError(ErrorCode::kInvalidInput,
                       "pod " + a.pod.name + " and pod " + b.pod.name + " differ in name or containers");
    for (size_t c = 0; c < a.containers.size(); ++c) {
      const ResolvedContainer& ca = a.containers[c];
      const ResolvedContainer& cb = b.containers[c];
      std::string where = a.pod.name + "/" + ca.name;
      if (ca.name != cb.name)
        return makeError(ErrorCode::kInvalidInput, where + ": container " + cb.name + " in its place");
      if (ca.env != cb.env) {
        std::string diff;
        for (const auto& entry : ca.env)
          if (std::find(cb.env.begin(), cb.env.end(), entry) == cb.env.end()) diff += " -" + entry.first;
        for (const auto& entry : cb.env)
          if (std::find(ca.env.begin(), ca.env.end(), entry) == ca.env.end()) diff += " +" + entry.first;
        return makeError(ErrorCode::kInvalidInput,
                         where + ": env differs:" + (diff.empty() ? " order" : diff));
      }
      bool scripts = isShellScript(ca.argv) && isShellScript(cb.argv) && ca.argv[0] == cb.argv[0];
      auto diff = scripts ? compareScriptWords(scriptWords(ca.argv[2]), scriptWords(cb.argv[2]))
                          : compareWords(ca.argv, cb.argv);
      if (!diff) return tl::unexpected(diff.error().withContext(where));
      if (!diff->empty()) report += where + ": " + *diff + "\n";
    }
  }
  return report;
}

}  // namespace railkit::podrun
