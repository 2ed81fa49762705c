// PLACEHOLDER: replaced by the snapshot implementation.
#include "cli/commands.h"

namespace railkit::cli {

void registerSnapshot(CLI::App& app, CommandContext& context) {
  auto* command = app.add_subcommand("snapshot", "(not yet available)");
  command->group("");  // hidden until it works
  command->callback([&context] {
    context.action = [] { return reportError(Error{ErrorCode::kUnavailable, "snapshot is not available yet"}); };
  });
}

}  // namespace railkit::cli
