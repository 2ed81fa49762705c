// PLACEHOLDER: replaced by the wait_dns implementation.
#include "cli/commands.h"

namespace railkit::cli {

void registerWaitDns(CLI::App& app, CommandContext& context) {
  auto* command = app.add_subcommand("wait-dns", "(not yet available)");
  command->group("");  // hidden until it works
  command->callback([&context] {
    context.action = [] { return reportError(Error{ErrorCode::kUnavailable, "wait-dns is not available yet"}); };
  });
}

}  // namespace railkit::cli
