// railkit: brings up, validates and debugs the RDMA network of GPU clusters.
#include <cstdio>

#include "cli/command.h"
#include "cli/commands.h"
#include "core/interrupt.h"

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
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"railkit: bring up, validate and debug the RDMA network of GPU clusters"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "railkit 0.1.0");
  railkit::cli::CommandContext context;
  context.env = railkit::environmentFromEnvp(environ);
  for (auto registrar : kCommands) registrar(app, context);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : railkit::cli::kExitUsage;
  }
  if (!context.action) return railkit::cli::kExitUsage;
  // Ctrl-C/SIGTERM still end every command; commands holding temporary
  // files (a .tar.gz --root, snapshot) first remove them (core/interrupt.h).
  railkit::installInterruptHandlers();
  int status = context.action();
  railkit::raisePendingInterrupt();  // end as the signal would have
  return status;
}
