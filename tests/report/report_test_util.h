#pragma once
// Reading the page back in tests: fixtures, sections, attributes, counts.
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>

#include "report/page.h"
#include "support/test_support.h"

namespace railkit::testing {

inline std::string reportFixture(const std::string& name) {
  return (sourceDir() / "tests" / "report" / "fixtures" / name).string();
}

inline nlohmann::json readJson(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

inline report::Document doc(const std::string& source, nlohmann::json json) {
  std::string kind = json.value("kind", "");
  return report::Document{source, kind, std::move(json)};
}

inline std::string page(const std::vector<report::Document>& docs, const std::string& title = "t") {
  report::PageOptions options;
  options.title = title;
  return report::renderPage(docs, options);
}

inline size_t countOf(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size()))
    ++n;
  return n;
}

// The value of attribute `name` in the first element from `from` on.
inline std::string attr(const std::string& html, const std::string& name, size_t from = 0) {
  std::string key = " " + name + "=\"";
  size_t at = html.find(key, from);
  if (at == std::string::npos) return "";
  at += key.size();
  return html.substr(at, html.find('"', at) - at);
}

// The text of <section id="id">...</section>, "" when absent.
inline std::string sectionOf(const std::string& html, const std::string& id) {
  size_t at = html.find("<section id=\"" + id + "\">");
  if (at == std::string::npos) return "";
  return html.substr(at, html.find("</section>", at) - at);
}

}  // namespace railkit::testing
