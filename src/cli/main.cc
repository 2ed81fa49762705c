// railkit: brings up, validates and debugs the RDMA network of GPU clusters.
#include <cstdio>
#include <string>

#include "cli/command.h"
#include "cli/commands.h"
#include "core/interrupt.h"
#include "core/version.h"

extern char** environ;

namespace {

// Every subcommand, in the order --help lists them. One line per command.
constexpr railkit::cli::CommandRegistrar kCommands[] = {
    railkit::cli::registerInspect,
    railkit::cli::registerSnapshot,
    railkit::cli::registerDoctor,
    railkit::cli::registerExplain,
    railkit::cli::registerWaitDns,
    railkit::cli::registerLogs,
    railkit::cli::registerBench,
    railkit::cli::registerRender,
    railkit::cli::registerLint,
    railkit::cli::registerEnv,
    railkit::cli::registerExporter,
};

// CLI11's message for a parse error, made one line as every railkit error is:
// its own failure message adds lines and may print the whole help.
std::string oneLine(std::string text) {
  for (char& c : text)
    if (c == '\n' || c == '\r') c = ' ';
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

// "railkit render node-prep": the subcommands parsed before the error, so the
// hint names the help that lists the option at fault.
std::string commandPath(const CLI::App& app) {
  std::string path = "railkit";
  const CLI::App* at = &app;
  while (true) {
    auto parsed = at->get_subcommands();
    if (parsed.empty()) break;
    at = parsed.front();
    path += " " + at->get_name();
  }
  return path;
}

std::string unknownCommand(const CLI::App& app, const std::string& name) {
  std::string message = "unknown command '" + name + "'; the commands are";
  for (const CLI::App* command : app.get_subcommands([](const CLI::App*) { return true; }))
    message += " " + command->get_name();
  return message;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"railkit: bring up, validate and debug the RDMA network of GPU clusters"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("railkit ") + railkit::kRailkitVersion);
  railkit::cli::CommandContext context;
  context.env = railkit::environmentFromEnvp(environ);
  for (auto registrar : kCommands) registrar(app, context);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version arrive here too, as "errors" with exit code 0.
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return app.exit(e);
    std::string message = oneLine(e.what());
    // "railkit frob": CLI11 only says a subcommand is required.
    if (app.get_subcommands().empty() && argc > 1 && argv[1][0] != '-') message = unknownCommand(app, argv[1]);
    std::fprintf(stderr, "railkit: %s (see %s --help)\n", message.c_str(), commandPath(app).c_str());
    return railkit::cli::kExitUsage;
  }
  if (!context.action) {
    std::fprintf(stderr, "railkit: no command to run (see %s --help)\n", commandPath(app).c_str());
    return railkit::cli::kExitUsage;
  }
  // Ctrl-C/SIGTERM still end every command; commands holding temporary
  // files (a .tar.gz --root, snapshot) first remove them (core/interrupt.h).
  railkit::installInterruptHandlers();
  int status = context.action();
  railkit::raisePendingInterrupt();  // end as the signal would have
  return status;
}
