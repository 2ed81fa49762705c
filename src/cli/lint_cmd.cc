// PLACEHOLDER: replaced by the lint implementation.
#include "cli/commands.h"

namespace railkit::cli {

void registerLint(CLI::App& app, CommandContext& context) {
  auto* command = app.add_subcommand("lint", "(not yet available)");
  command->group("");  // hidden until it works
  command->callback([&context] {
    context.action = [] { return reportError(Error{ErrorCode::kUnavailable, "lint is not available yet"}); };
  });
}

}  // namespace railkit::cli
