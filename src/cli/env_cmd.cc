// railkit env [--root DIR|FILE.tar.gz] [--ctrl-if IF] [--data-if LIST] [--hca LIST] [--check] [--json]:
// prints the NCCL/UCX settings computed from the RDMA devices this pod really
// has, as `export` lines for `eval` at container start (docs/env.md).
#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli/commands.h"
#include "cli/read_root.h"
#include "core/interrupt.h"
#include "model/collect.h"
#include "model/root_source.h"
#include "podenv/output.h"
#include "podenv/pod_env.h"

namespace railkit::cli {

namespace {

struct EnvOptions {
  std::string root;
  std::string ctrl_if;
  std::string data_if;
  std::string hca;
  bool data_if_given = false;
  bool hca_given = false;
  bool check = false;
  OutputOptions output;
};

Result<podenv::PodEnvOptions> toPodEnvOptions(const EnvOptions& opts) {
  podenv::PodEnvOptions out;
  if (!opts.ctrl_if.empty()) {
    if (auto problem = podenv::netdevNameProblem(opts.ctrl_if))
      return makeError(ErrorCode::kUsage, "--ctrl-if: '" + podenv::commentSafe(opts.ctrl_if) +
                                              "' is not an interface name: " + *problem);
    out.ctrl_if = opts.ctrl_if;
  }
  if (opts.data_if_given) {
    auto list = podenv::parseInterfaceList(opts.data_if, "--data-if");
    if (!list) return tl::unexpected(list.error());
    out.data_ifs = std::move(*list);
  }
  if (opts.hca_given) {
    auto list = podenv::parseHcaList(opts.hca);
    if (!list) return tl::unexpected(list.error());
    out.hcas = std::move(*list);
  }
  return out;
}

int runEnv(const EnvOptions& opts) {
  auto pod_options = toPodEnvOptions(opts);
  if (!pod_options) return reportError(pod_options.error());
  auto read_root = ReadRoot::open(opts.root);
  if (!read_root) return reportError(read_root.error());
  FileRoot& root = read_root->files();
  auto inv = model::collectInventory(root, model::CollectOptions{});
  if (!inv) return reportError(inv.error());
  if (auto st = checkInterrupt("--root"); !st) return reportError(st.error());
  if (!opts.root.empty()) inv->root = opts.root;

  auto env = podenv::computePodEnv(*inv, *pod_options);
  bool failed = opts.check && !env.missing.empty();
  // stderr is the container log: every note and missing thing, one line each.
  for (const auto& note : env.notes)
    std::fprintf(stderr, "railkit env: note: %s\n", podenv::commentSafe(note).c_str());
  for (const auto& m : env.missing)
    std::fprintf(stderr, "railkit env: missing: %s\n",
                 podenv::commentSafe(podenv::describeMissing(m)).c_str());
  auto st = emitOutput(opts.output, podenv::podEnvToJson(env, inv->root, !failed),
                       [&] { std::cout << podenv::renderShell(env, !failed); });
  if (!st) return reportError(st.error());
  return failed ? kExitFindings : kExitOk;
}

}  // namespace

void registerEnv(CLI::App& app, CommandContext& context) {
  auto* command = app.add_subcommand(
      "env", "Print NCCL/UCX export lines computed from the RDMA devices this pod really has");
  auto opts = std::make_shared<EnvOptions>();
  command->add_option("--root", opts->root, "Read a snapshot (directory or .tar.gz) instead of this machine");
  command
      ->add_option("--ctrl-if", opts->ctrl_if,
                   "Control interface for NCCL_SOCKET_IFNAME (default: the IPv4 default route's, else eth0)")
      ->type_name("IF");
  auto* data_if = command
                      ->add_option("--data-if", opts->data_if,
                                   "Comma list of the pod's data interfaces, in rail order (default: every "
                                   "interface with an RDMA port behind it, except the control one)")
                      ->type_name("LIST");
  auto* hca = command
                  ->add_option("--hca", opts->hca,
                               "Comma list of RDMA devices (dev or dev:port) to use as well, and to require "
                               "with --check")
                  ->type_name("LIST");
  command->add_flag("--check", opts->check,
                    "Exit 1 (and print no export line) when a --data-if, --ctrl-if or --hca is missing, or "
                    "no RDMA port is found");
  addOutputFlags(*command, opts->output);
  command->callback([&context, opts, data_if, hca] {
    opts->data_if_given = data_if->count() > 0;
    opts->hca_given = hca->count() > 0;
    context.action = [opts] { return runEnv(*opts); };
  });
}

}  // namespace railkit::cli
