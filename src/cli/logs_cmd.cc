// PLACEHOLDER: replaced by the logs implementation.
#include "cli/commands.h"

namespace railkit::cli {

void registerLogs(CLI::App& app, CommandContext& context) {
  auto* command = app.add_subcommand("logs", "(not yet available)");
  command->group("");  // hidden until it works
  command->callback([&context] {
    context.action = [] { return reportError(Error{ErrorCode::kUnavailable, "logs is not available yet"}); };
  });
}

}  // namespace railkit::cli
