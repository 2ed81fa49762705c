#pragma once
// What `bench` and `validate` share: the launch flags, BenchConfig from flags
// and the launcher's environment, the NCCL probe and --local's forked ranks.

#include <functional>
#include <string>
#include <type_traits>
#include <variant>

#include "bench/bench_flags.h"
#include "bench/bench_options.h"
#include "bench/rank_processes.h"
#include "bench/run.h"
#include "cli/command.h"
#include "core/environment.h"
#include "core/file_root.h"

namespace railkit::cli {

// A rank exiting 2 (usage) or worse stops the others; a crash counts as 3.
inline constexpr bench::SuperviseStatuses kRankStatuses{kExitOk, kExitUsage, kExitIncomplete};

// One row of an option table (bench's or validate's) as a CLI11 option,
// checked while the command line is parsed with the check the library runs.
template <class Flags, class Row>
void addTabledOption(CLI::App& command, Flags& flags, const Row& o, const std::string& help,
                     bool show_default) {
  using bench::OptionCheck;
  CLI::Option* option = std::visit(
      [&](auto member) -> CLI::Option* {
        auto& value = flags.*member;
        using T = std::remove_reference_t<decltype(value)>;
        if constexpr (std::is_same_v<T, bool>) {
          return command.add_flag(o.names, value, help);
        } else if constexpr (std::is_same_v<T, std::string>) {
          if (o.check == OptionCheck::kSwitchWithValue) {
            // A flag with an optional =F, as in logs: a separate word after
            // it stays an argument of its own (never taken for F).
            return command.add_flag(std::string(o.names) + "{" + o.switch_value + "}", value, help)
                ->type_name("F");
          }
          return command.add_option(o.names, value, help);
        } else {
          return command.add_option(o.names, value, help);
        }
      },
      o.field);
  if (show_default) option->capture_default_str();
  if (o.check == OptionCheck::kText || o.check == OptionCheck::kSwitch ||
      o.check == OptionCheck::kSwitchWithValue)
    return;
  const bench::OptionSpec* spec = &o;  // the tables live as long as the program
  option->check(CLI::Validator([spec](std::string& value) { return bench::checkOptionText(*spec, value); },
                               bench::expectedText(o)));
}

// The options of bench::benchOptions() that `which` takes (validate: the
// shared rows), each checked while parsing. After parsing, the caller sets
// flags.expect_line_rate_set from the count of --expect-line-rate.
void addBenchOptions(CLI::App& command, bench::BenchFlags& flags, bench::Command which);

// Every flag checked, then the launcher, interfaces and data NICs resolved.
// `nic_root` is where the data NICs' rates are read (--expect-line-rate
// without --nic-gbps): the machine, or validate's --root.
Result<bench::BenchConfig> makeBenchConfig(const bench::BenchFlags& flags, const Environment& env,
                                           const FileRoot& nic_root = FileRoot("/"));

// Before ranks are forked: the nccl backend's libraries load and see enough
// GPUs, the ucx backend's UCX loads (one line instead of one error per forked
// rank). Other backends need nothing.
Status probeBackendOnce(const bench::BenchConfig& config);

// --local N: forks the N ranks on lo around one inherited rendezvous socket
// and a fresh job token, runs `run_rank` in each and supervises them.
int runLocalRanks(bench::BenchConfig config, const std::function<int(const bench::BenchConfig&)>& run_rank);

}  // namespace railkit::cli
