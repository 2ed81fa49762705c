// PLACEHOLDER: replaced by the bench implementation.
#include "cli/commands.h"

namespace railkit::cli {

void registerBench(CLI::App& app, CommandContext& context) {
  auto* command = app.add_subcommand("bench", "(not yet available)");
  command->group("");  // hidden until it works
  command->callback([&context] {
    context.action = [] { return reportError(Error{ErrorCode::kUnavailable, "bench is not available yet"}); };
  });
}

}  // namespace railkit::cli
