// PLACEHOLDER: replaced by the inspect implementation.
#include "cli/commands.h"

namespace railkit::cli {

void registerInspect(CLI::App& app, CommandContext& context) {
  auto* command = app.add_subcommand("inspect", "(not yet available)");
  command->group("");  // hidden until it works
  command->callback([&context] {
    context.action = [] { return reportError(Error{ErrorCode::kUnavailable, "inspect is not available yet"}); };
  });
}

}  // namespace railkit::cli
