// PLACEHOLDER: replaced by the doctor implementation.
#include "cli/commands.h"

namespace railkit::cli {

void registerDoctor(CLI::App& app, CommandContext& context) {
  auto* command = app.add_subcommand("doctor", "(not yet available)");
  command->group("");  // hidden until it works
  command->callback([&context] {
    context.action = [] { return reportError(Error{ErrorCode::kUnavailable, "doctor is not available yet"}); };
  });
}

}  // namespace railkit::cli
