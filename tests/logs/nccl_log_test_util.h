#pragma once
// Feeds text or a file to an NcclLogAnalyzer line by line, as the reader does.
#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "logs/nccl_log.h"

namespace railkit::logs::testutil {

inline void feedText(NcclLogAnalyzer& analyzer, const std::string& text) {
  uint64_t number = 0;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    analyzer.feedLine(std::string_view(text).substr(start, end - start), ++number);
    start = end + 1;
  }
}

inline std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

inline std::vector<std::string> ids(const std::vector<Finding>& findings) {
  std::vector<std::string> out;
  for (const auto& f : findings) out.push_back(f.id);
  return out;
}

inline const Finding* find(const std::vector<Finding>& findings, const std::string& id) {
  auto it = std::find_if(findings.begin(), findings.end(), [&](const Finding& f) { return f.id == id; });
  return it == findings.end() ? nullptr : &*it;
}

}  // namespace railkit::logs::testutil
