// railkit report FILE... [-o report.html] [--title T]
// One self-contained HTML page (inline CSS and SVG, no JavaScript, no network
// request) from railkit JSON documents and nccl-tests / perftest / NCCL text.
// An input that cannot be used is named on stderr (one line each) and on the
// page; the page is still written from the others, and the exit status is 2.
#include <cstdio>
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "core/atomic_file.h"
#include "report/page.h"

namespace railkit::cli {
namespace {

struct ReportOptions {
  std::vector<std::string> files;
  std::string output = "report.html";
  std::string title = "railkit report";
};

int runReport(const ReportOptions& opts) {
  auto loaded = report::loadInputs(opts.files);
  int status = kExitOk;
  report::PageOptions page;
  page.title = opts.title;
  for (const auto& e : loaded.errors) {
    status = std::max(status, reportError(e));
    page.unread.push_back(e.message);
  }
  if (loaded.documents.empty())
    return reportError(Error{ErrorCode::kInvalidInput, "report: no input could be read; no page written"});
  std::string html = report::renderPage(loaded.documents, page);
  if (opts.output == "-") {
    std::cout.write(html.data(), static_cast<std::streamsize>(html.size()));
    if (auto st = stdoutWritten("page"); !st) return reportError(st.error());
  } else if (auto st = writeFileAtomic(opts.output, html, "report -o"); !st) {
    return reportError(st.error());
  } else {
    std::printf("railkit report: wrote %s (%zu bytes, %zu document(s))\n", opts.output.c_str(), html.size(),
                loaded.documents.size());
  }
  return status;
}

}  // namespace

void registerReport(CLI::App& app, CommandContext& context) {
  auto* command = app.add_subcommand("report",
                                     "Write one self-contained HTML page (SVG charts, no JavaScript) from "
                                     "railkit JSON and nccl-tests/perftest/NCCL text");
  auto opts = std::make_shared<ReportOptions>();
  command
      ->add_option("files", opts->files,
                   "railkit JSON documents (validate, bench, doctor, inspect, logs, lint, fabric) "
                   "and nccl-tests / perftest / NCCL log text; - reads stdin")
      ->type_name("FILE...")
      ->required();
  command
      ->add_option("-o,--output", opts->output, "The HTML file to write; - for stdout (default report.html)")
      ->type_name("FILE");
  command->add_option("--title", opts->title, "The page's title")->type_name("T");
  command->callback([&context, opts] { context.action = [opts] { return runReport(*opts); }; });
}

}  // namespace railkit::cli
