#include "report/page.h"

#include <fmt/format.h>

#include "report/html.h"
#include "report/sections.h"

namespace railkit::report {
namespace {

struct SectionEntry {
  const char* id;
  const char* title;  // for the contents line
  std::string (*render)(const Documents&);
};

// The order of the page: verdict first, then the charts, then the detail.
constexpr SectionEntry kSections[] = {
    {"verdict", "Verdict", renderVerdict}, {"busbw", "Bus bandwidth", renderBusbw},
    {"p2p", "Point-to-point", renderP2p},  {"pairs", "Pairs", renderPairs},
    {"fleet", "Fleet", renderFleet},       {"topology", "GPU-NIC distance", renderTopology},
    {"fabric", "Fabric", renderFabric},    {"logs", "NCCL logs", renderNcclLogs},
};

}  // namespace

std::string shortKind(const std::string& kind) {
  std::string k = kind.rfind("railkit.", 0) == 0 ? kind.substr(8) : kind;
  return k.substr(0, k.find('/'));
}

std::string renderPage(const std::vector<Document>& docs, const PageOptions& options) {
  std::string sections, contents;
  for (const auto& s : kSections) {
    std::string html;
    // Sections read members defensively (html.h); should one still meet a
    // shape it cannot use, the page says so instead of losing every section.
    try {
      html = s.render(docs);
    } catch (const nlohmann::json::exception& e) {
      html = section(s.id, s.title,
                     "<p class=\"bad\">this section could not be drawn: " + esc(e.what()) + "</p>\n");
    }
    if (html.empty()) continue;
    sections += html;
    contents += fmt::format("<a href=\"#{}\">{}</a> ", s.id, s.title);
  }
  std::string inputs;
  for (const auto& d : docs)
    inputs += fmt::format("<li>{} <span class=\"muted\">{}, railkit {}</span></li>", esc(d.source),
                          esc(d.kind), esc(textAt(d.json, "railkit_version")));
  for (const auto& u : options.unread) inputs += "<li class=\"bad\">not read: " + esc(u) + "</li>";
  // No external reference of any kind: the CSP forbids every fetch, so even
  // a bug that wrote a URL could not make the page reach the network.
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
      "img-src data:\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<meta name=\"color-scheme\" content=\"light "
      "dark\">\n<title>{0}</title>\n<style>\n{1}</style>\n</head>\n<body>\n"
      "<header><h1>{0}</h1>\n<nav>{2}</nav>\n<details><summary>{3} input(s)</summary><ul "
      "class=\"inputs\">{4}</ul></details>\n"
      "</header>\n<main>\n{5}</main>\n<footer>railkit report &middot; every chart's numbers are in the table "
      "below it; "
      "bandwidth in GB/s = 10<sup>9</sup> B/s (busbw), Gb/s = 10<sup>9</sup> bit/s "
      "(links)</footer>\n</body>\n</html>\n",
      esc(options.title), pageStyle(), contents, docs.size() + options.unread.size(), inputs, sections);
}

}  // namespace railkit::report
