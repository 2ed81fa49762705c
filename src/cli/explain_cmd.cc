// PLACEHOLDER: replaced by the explain implementation.
#include "cli/commands.h"

namespace railkit::cli {

void registerExplain(CLI::App& app, CommandContext& context) {
  auto* command = app.add_subcommand("explain", "(not yet available)");
  command->group("");  // hidden until it works
  command->callback([&context] {
    context.action = [] { return reportError(Error{ErrorCode::kUnavailable, "explain is not available yet"}); };
  });
}

}  // namespace railkit::cli
