#include "bench/ucx/ucx_worker.h"

#include <sched.h>

namespace railkit::bench::ucx {
namespace {

tl::unexpected<Error> failure(const char* what, ucs_status_t st, const std::vector<Setting>& settings) {
  return makeError(ErrorCode::kUnavailable, std::string("ucx: ") + what + ": " + ucs_status_string(st) +
                                                " (" + describeSettings(settings) + ")");
}

}  // namespace

Result<Worker> openWorker(const std::vector<Setting>& settings) {
  ucp_config_t* config = nullptr;
  if (ucs_status_t st = ucp_config_read(nullptr, nullptr, &config); st != UCS_OK) {
    return failure("ucp_config_read", st, settings);
  }
  for (const auto& s : settings) {
    if (ucs_status_t st = ucp_config_modify(config, s.name.c_str(), s.value.c_str()); st != UCS_OK) {
      ucp_config_release(config);
      return makeError(ErrorCode::kUsage,
                       "UCX rejected UCX_" + s.name + "=" + s.value + ": " + ucs_status_string(st));
    }
  }
  ucp_params_t params{};
  params.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_NAME;
  params.features = UCP_FEATURE_TAG;
  params.name = "railkit";
  Worker w;
  ucs_status_t st = ucp_init(&params, config, &w.context);
  ucp_config_release(config);
  if (st != UCS_OK) return failure("ucp_init", st, settings);
  ucp_worker_params_t wparams{};
  wparams.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
  wparams.thread_mode = UCS_THREAD_MODE_SINGLE;
  if (st = ucp_worker_create(w.context, &wparams, &w.worker); st != UCS_OK) {
    ucp_cleanup(w.context);
    return failure("ucp_worker_create", st, settings);
  }
  return w;
}

void closeWorker(Worker& w, std::vector<ucp_ep_h>& eps, std::vector<void*> requests, bool force,
                 std::chrono::steady_clock::duration limit) {
  if (w.worker != nullptr) {
    for (auto& ep : eps) {
      if (ep == nullptr) continue;
      ucp_request_param_t param{};
      param.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
      param.flags = force ? UCP_EP_CLOSE_FLAG_FORCE : 0;
      void* req = ucp_ep_close_nbx(ep, &param);
      if (req != nullptr && !UCS_PTR_IS_ERR(req)) requests.push_back(req);
      ep = nullptr;
    }
    auto done = [&] {
      for (void* req : requests) {
        if (ucp_request_check_status(req) == UCS_INPROGRESS) return false;
      }
      return true;
    };
    auto deadline = std::chrono::steady_clock::now() + limit;
    while (!done() && std::chrono::steady_clock::now() < deadline) {
      if (ucp_worker_progress(w.worker) == 0) sched_yield();
    }
    for (void* req : requests) ucp_request_free(req);  // an unfinished one is released when it ends
    ucp_worker_destroy(w.worker);
    w.worker = nullptr;
  }
  if (w.context != nullptr) ucp_cleanup(w.context);
  w.context = nullptr;
}

}  // namespace railkit::bench::ucx
