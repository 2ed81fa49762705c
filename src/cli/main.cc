// railkit: brings up, validates and debugs the RDMA network of GPU clusters.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "cli/command.h"
#include "cli/commands.h"
#include "cli/revision.h"
#include "cli/stdout_errors.h"
#include "core/interrupt.h"
#include "core/version.h"

extern char** environ;

namespace {

// Every subcommand, in the order --help lists them. One line per command.
constexpr railkit::cli::CommandRegistrar kCommands[] = {
    railkit::cli::registerInspect, railkit::cli::registerSnapshot, railkit::cli::registerDoctor,
    railkit::cli::registerExplain, railkit::cli::registerWaitDns,  railkit::cli::registerLogs,
    railkit::cli::registerBench,   railkit::cli::registerValidate, railkit::cli::registerFabric,
    railkit::cli::registerReport,  railkit::cli::registerRender,   railkit::cli::registerLint,
    railkit::cli::registerEnv,     railkit::cli::registerExporter, railkit::cli::registerInstallSelf,
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

constexpr const char* kExitCodes =
    "Exit status: 0 ok; 1 findings (errors) or a failed expectation; 2 usage or input error;\n"
    "3 incomplete (a peer or deadline lost); 4 internal error (a railkit bug).";

// One example per command, shown under its --help with the exit statuses.
struct HelpExample {
  const char* command;
  const char* example;
};
constexpr HelpExample kExamples[] = {
    {"inspect", "railkit inspect --root examples/dgx-h100-8gpu"},
    {"snapshot", "railkit snapshot --output node.tar.gz   # then: railkit doctor --root node.tar.gz"},
    {"doctor", "railkit doctor --root node.tar.gz --hostfile /etc/mpi/hostfile"},
    {"explain", "railkit explain memlock-limit"},
    {"env", "eval \"$(railkit env --ctrl-if eth0 --data-if net1,net2 --check)\""},
    {"logs", "kubectl logs job/nccl-test | railkit logs - --expect-line-rate"},
    {"bench", "railkit bench all_reduce --local 2 -b 8 -e 64M"},
    {"validate",
     "RANK=3 WORLD_SIZE=16 MASTER_ADDR=node-0 railkit validate --data-if net1 --expect-nics 8 --expect-gpus "
     "8 "
     "--expect-line-rate   # on every node; rank 0 prints the verdict"},
    {"fabric", "ibnetdiscover > fabric.txt && railkit fabric fabric.txt --topology-out topology/"},
    {"report",
     "railkit report validate.json bench.json nccl-tests.txt -o report.html --title \"cluster A "
     "acceptance\""},
    {"render", "railkit render --profile examples/profiles/rdma-shared.yaml --output out/"},
    {"lint", "railkit lint --schemas ../shared/schemas out/*.yaml"},
    {"wait-dns", "railkit wait-dns --hostfile /etc/mpi/hostfile --timeout 300"},
    {"exporter",
     "railkit exporter --listen 0.0.0.0:9877 --interval 15   # then: curl localhost:9877/metrics"},
    {"install-self",
     "railkit install-self /opt/railkit   # an initContainer's emptyDir; then /opt/railkit/railkit"},
};

void addHelpFooters(CLI::App& app) {
  app.footer(kExitCodes);
  for (CLI::App* command : app.get_subcommands({})) {
    std::string footer;
    for (const auto& e : kExamples) {
      if (command->get_name() == e.command) footer = std::string("Example:\n  ") + e.example + "\n\n";
    }
    command->footer(footer + kExitCodes);
  }
}

}  // namespace

int main(int argc, char** argv) {
  // Named here: CLI11 would otherwise print argv[0] (a build path) in usage lines.
  CLI::App app{"railkit: bring up, validate and debug the RDMA network of GPU clusters", "railkit"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("railkit ") + railkit::kRailkitVersion + " (git " +
                                        railkit::cli::gitRevision() + ")");
  railkit::cli::CommandContext context;
  context.env = railkit::environmentFromEnvp(environ);
  for (auto registrar : kCommands) registrar(app, context);
  addHelpFooters(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version arrive here too, as "errors" with exit code 0.
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return app.exit(e);
    std::string message = oneLine(e.what());
    // "railkit frob": CLI11 only says a subcommand is required.
    if (app.get_subcommands().empty() && argc > 1 && argv[1][0] != '-')
      message = unknownCommand(app, argv[1]);
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
  int status = 0;
  {
    // The reason a write to stdout failed, for stdoutWritten's message.
    railkit::cli::StdoutErrorsScope stdout_errors;
    status = context.action();
  }
  railkit::raisePendingInterrupt();  // end as the signal would have
#ifndef RAILKIT_SANITIZED
  // exit() flushes stdio and runs static destructors, but leaves main's
  // locals, the kept results among them, to the kernel.
  if (!context.kept_until_exit.empty()) std::exit(status);
#endif
  return status;
}
