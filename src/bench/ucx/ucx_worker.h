#pragma once
// The UCP context and worker of one rank: opened with the run's UCX settings
// (ucx_config.h) on top of what UCX reads from the environment, and closed
// in a bounded way: endpoints flushed when the run went well, forced closed
// after a failure (a flush towards a dead peer would never end), and
// whatever is still in flight released before the worker is destroyed.

#include <chrono>
#include <vector>

#include "bench/ucx/ucx_api.h"
#include "bench/ucx/ucx_config.h"
#include "core/result.h"

namespace railkit::bench::ucx {

struct Worker {
  ucp_context_h context = nullptr;
  ucp_worker_h worker = nullptr;
};

// kUsage when UCX rejects a setting, kUnavailable when UCP cannot start.
Result<Worker> openWorker(const UcxLibrary& lib, const std::vector<Setting>& settings);

// Closes `eps` (force or flush), waits at most `limit` for those closes and
// `requests` (already cancelled where UCP can cancel) to finish, frees the
// requests, then destroys the worker and the context. Leaves `w` empty.
void closeWorker(const UcxLibrary& lib, Worker& w, std::vector<ucp_ep_h>& eps, std::vector<void*> requests,
                 bool force, std::chrono::steady_clock::duration limit);

}  // namespace railkit::bench::ucx
