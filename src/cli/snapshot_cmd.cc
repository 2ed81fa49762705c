// railkit snapshot --output FILE.tar.gz|DIR [--root DIR] [--force]: copies every file
// inspect reads, plus live-only facts, so inspect/doctor can run on the copy.
#include <fmt/core.h>

#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/read_root.h"
#include "core/interrupt.h"
#include "exporter/counters.h"
#include "model/collect.h"
#include "model/root_source.h"
#include "model/snapshot.h"

namespace railkit::cli {

namespace {

struct SnapshotOptions {
  std::string out;
  std::string root;
  bool force = false;
  OutputOptions output;
};

int runSnapshot(const SnapshotOptions& opts) {
  // Refuse an existing output before the (possibly long) collection.
  if (auto st = model::checkSnapshotOutput(opts.out, opts.force); !st) return reportError(st.error());
  auto read_root = ReadRoot::open(opts.root);
  if (!read_root) return reportError(read_root.error());
  FileRoot& root = read_root->files();
  model::SnapshotRecorder recorder;
  root.setObserver(&recorder);
  auto inv = model::collectInventory(root, {});
  if (!inv) return reportError(inv.error());
  // The port counters too, so `exporter --root SNAPSHOT` serves what this
  // node counted when the snapshot was taken (inspect itself never reads them).
  for (const auto& device : inv->rdma_devices) {
    for (const auto& port : device.ports) (void)exporter::readPortCounters(root, device.name, port.port);
  }
  root.setObserver(nullptr);
  if (auto st = checkInterrupt("snapshot"); !st) return reportError(st.error());
  auto stats = model::writeSnapshot(root, recorder, *inv, opts.out, opts.force);
  if (!stats) return reportError(stats.error());
  nlohmann::json doc{{"output", opts.out},
                     {"files", stats->files},
                     {"symlinks", stats->links},
                     {"directories_listed", stats->dirs},
                     {"rdma_devices", inv->rdma_devices.size()},
                     {"gpus", inv->gpus.size()}};
  auto st = emitOutput(opts.output, doc, [&] {
    fmt::print(
        "snapshot: wrote {} ({} files, {} symlinks, {} directories listed, {} RDMA devices, {} GPUs)\n",
        opts.out, stats->files, stats->links, stats->dirs, inv->rdma_devices.size(), inv->gpus.size());
  });
  if (!st) return reportError(st.error());
  return kExitOk;
}

}  // namespace

void registerSnapshot(CLI::App& app, CommandContext& context) {
  auto* command =
      app.add_subcommand("snapshot", "Copy what inspect reads (+ live facts) into a directory or .tar.gz");
  auto opts = std::make_shared<SnapshotOptions>();
  command->add_option("--output", opts->out, "Output: a new directory, or FILE.tar.gz")
      ->type_name("DIR|FILE.tar.gz")
      ->required();
  command->add_option("--root", opts->root, "Snapshot a tree (directory or .tar.gz) instead of this machine");
  command->add_flag("--force", opts->force,
                    "Replace an existing output file, or a directory that is a railkit snapshot");
  addOutputFlags(*command, opts->output);
  command->callback([&context, opts] { context.action = [opts] { return runSnapshot(*opts); }; });
}

}  // namespace railkit::cli
