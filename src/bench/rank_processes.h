#pragma once
// Ranks of one node as processes: `bench --local N` and `--nproc-per-node G`
// fork them from one railkit and supervise them the way mpirun does.

#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

#include "core/result.h"

namespace railkit::bench {

// Forks `count` children; child i runs rank_main(i) and exits with the
// status it returns. On a failed fork the children already started are
// stopped and reaped, and the error says so.
Result<std::vector<pid_t>> forkRanks(int count, const std::function<int(int index)>& rank_main);

struct SuperviseStatuses {
  int ok = 0;
  int fatal = 2;    // a rank exiting with this or worse could not run: stop the others
  int crashed = 3;  // the status of a rank killed by a signal
};

// Waits for the forked ranks. Like mpirun: once a rank could not run (usage
// error, lost peer, crash) the others would only wait out their timeouts,
// so they are stopped. The worst exit status is the job's.
int superviseRanks(const std::vector<pid_t>& children, const SuperviseStatuses& statuses);

// One line for a missing NCCL, driver or GPU, not one per forked rank. The
// probe runs in a child because it initialises CUDA, which must not happen
// in a process that forks the ranks afterwards.
Status probeNcclInChild(const std::string& nccl_lib_dir, int gpus_needed);

// The same for UCX (libucs/libucp found, complete, of a usable version). In a
// child because loading UCX runs its constructors (signal handlers, memory
// hooks), which the process that forks the ranks should not carry. A railkit
// built without UCX's headers has nothing to probe: ok.
Status probeUcxInChild(const std::string& ucx_lib_dir);

}  // namespace railkit::bench
