#pragma once
// `railkit report`: one self-contained HTML page from railkit's documents.
// CSS and SVG are inline, there is no script and no URL the page would load,
// so it opens the same on an air-gapped cluster, attached to a ticket, or
// printed. Sections (sections.h) appear when their data is present.

#include <string>
#include <vector>

#include "report/inputs.h"

namespace railkit::report {

struct PageOptions {
  std::string title = "railkit report";
  std::vector<std::string> unread;  // inputs that could not be used, named on the page too
};

std::string renderPage(const std::vector<Document>& docs, const PageOptions& options);

// The page's stylesheet (style.cc): light and dark via prefers-color-scheme,
// a print layout, and the palettes the charts use.
const char* pageStyle();

}  // namespace railkit::report
