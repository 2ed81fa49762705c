#pragma once
// What `bench` and `validate` share: the launch flags, BenchConfig from flags
// and the launcher's environment, the NCCL probe and --local's forked ranks.

#include <functional>

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
