#pragma once
// The CLI is thin: each subcommand lives in its own file, declares its flags
// on the CLI11 app, calls the library and prints. main.cc lists every
// subcommand in one table. A command's action returns the process exit
// status (0 ok, 1 problems found, 2 usage/unreadable input, 3 incomplete run).

#include <CLI/CLI.hpp>
#include <functional>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/environment.h"
#include "core/result.h"

namespace railkit::cli {

struct CommandContext {
  Environment env;              // the process environment, read once in main
  std::function<int()> action;  // set by the subcommand that was chosen

  // A large result the command is done with, handed to main: main ends the
  // process without tearing it down (on a 1 GiB log, freeing the report and
  // its document node by node took 50 ms, about what building and writing
  // the document took), except in sanitizer builds, whose leak check wants
  // everything freed.
  template <class T>
  void keepUntilExit(T&& value) {
    kept_until_exit.push_back(std::make_shared<std::decay_t<T>>(std::forward<T>(value)));
  }
  std::vector<std::shared_ptr<void>> kept_until_exit;
};

using CommandRegistrar = void (*)(CLI::App& app, CommandContext& context);

// Exit statuses.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFindings = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitIncomplete = 3;
inline constexpr int kExitInternal = 4;  // railkit's own bug (ErrorCode::kInternal), not the user's input

// The one place an Error becomes a line on stderr and an exit status.
int reportError(const Error& error);

// --json / --json-out, shared by every command that has a JSON document.
struct OutputOptions {
  bool json = false;
  std::string json_out;
  // The document's "kind", e.g. "railkit.doctor/v1": set by addOutputFlags
  // from the command's name; a command with a second document shape
  // (doctor --list-rules) names its own.
  std::string kind;
};
void addOutputFlags(CLI::App& command, OutputOptions& options);

// Prints `document` on stdout when --json, writes it to --json-out when given,
// and otherwise calls `human` to print the human view. Every document gets
// "kind" and "railkit_version" (docs/json.md).
Status emitOutput(const OutputOptions& options, const nlohmann::json& document,
                  const std::function<void()>& human);
// The same, stamping the document in place (no copy of a large one).
Status emitOutput(const OutputOptions& options, nlohmann::json&& document,
                  const std::function<void()>& human);

// After a command printed its result on stdout: an error when a write failed
// (a full disk), naming `what` was being written, so that a cut-short result
// never ends as a success. emitOutput checks this itself.
Status stdoutWritten(const std::string& what);

}  // namespace railkit::cli
