#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "core/atomic_file.h"
#include "core/version.h"

namespace railkit::cli {

int reportError(const Error& error) {
  if (error.code == ErrorCode::kInternal) {
    std::fprintf(stderr, "railkit: internal error (a railkit bug, please report it): %s\n",
                 error.message.c_str());
    return kExitInternal;
  }
  std::fprintf(stderr, "railkit: %s\n", error.message.c_str());
  switch (error.code) {
    case ErrorCode::kTimeout:
    case ErrorCode::kPeerLost: return kExitIncomplete;
    default: return kExitUsage;
  }
}

void addOutputFlags(CLI::App& command, OutputOptions& options) {
  options.kind = "railkit." + command.get_name() + "/v1";
  command.add_flag("--json", options.json, "Print one JSON document on stdout instead of the human view");
  command.add_option("--json-out", options.json_out, "Also write the JSON document to FILE")
      ->type_name("FILE");
}

Status emitOutput(const OutputOptions& options, const nlohmann::json& document,
                  const std::function<void()>& human) {
  return emitOutput(options, nlohmann::json(document), human);
}

Status emitOutput(const OutputOptions& options, nlohmann::json&& stamped,
                  const std::function<void()>& human) {
  // Strings come from files the user hands us (a snapshot's environ, a
  // manifest, a log); bytes that are not UTF-8 become U+FFFD rather than
  // aborting the dump.
  if (stamped.is_object()) {
    stamped["kind"] = options.kind;
    stamped["railkit_version"] = kRailkitVersion;
  }
  auto text = [&] { return stamped.dump(2, ' ', false, nlohmann::json::error_handler_t::replace); };
  if (!options.json_out.empty()) {
    // A temporary file renamed over the name: a killed run leaves the
    // previous result or the new one, never half a document.
    if (auto st = writeFileAtomic(options.json_out, text() + '\n', "--json-out"); !st) return st;
  }
  if (options.json) {
    std::cout << text() << '\n';
  } else {
    human();
  }
  std::cout.flush();
  return okStatus();
}

}  // namespace railkit::cli
