#pragma once
// Registration functions of every subcommand, one file each (cli/<name>_cmd.cc).
#include "cli/command.h"

namespace railkit::cli {

void registerInspect(CLI::App& app, CommandContext& context);
void registerSnapshot(CLI::App& app, CommandContext& context);
void registerDoctor(CLI::App& app, CommandContext& context);
void registerExplain(CLI::App& app, CommandContext& context);
void registerWaitDns(CLI::App& app, CommandContext& context);
void registerLogs(CLI::App& app, CommandContext& context);
void registerBench(CLI::App& app, CommandContext& context);
void registerValidate(CLI::App& app, CommandContext& context);
void registerFabric(CLI::App& app, CommandContext& context);
void registerReport(CLI::App& app, CommandContext& context);
void registerRender(CLI::App& app, CommandContext& context);
void registerLint(CLI::App& app, CommandContext& context);
void registerEnv(CLI::App& app, CommandContext& context);
void registerExporter(CLI::App& app, CommandContext& context);
void registerInstallSelf(CLI::App& app, CommandContext& context);

}  // namespace railkit::cli
