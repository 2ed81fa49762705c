// PLACEHOLDER: replaced by the render implementation.
#include "cli/commands.h"

namespace railkit::cli {

void registerRender(CLI::App& app, CommandContext& context) {
  auto* command = app.add_subcommand("render", "(not yet available)");
  command->group("");  // hidden until it works
  command->callback([&context] {
    context.action = [] { return reportError(Error{ErrorCode::kUnavailable, "render is not available yet"}); };
  });
}

}  // namespace railkit::cli
