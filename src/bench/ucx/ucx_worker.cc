#include "bench/ucx/ucx_worker.h"

#include <sched.h>

namespace railkit::bench::ucx {
namespace {

tl::unexpected<Error> failure(const UcxLibrary& lib, const char* what, ucs_status_t st,
                              const std::vector<Setting>& settings) {
  return makeError(ErrorCode::kUnavailable, std::string("ucx: ") + what + ": " + lib.statusText(st) + " (" +
                                                describeSettings(settings) + ")");
}

}  // namespace

Result<Worker> openWorker(const UcxLibrary& lib, const std::vector<Setting>& settings) {
  ucp_config_t* config = nullptr;
  if (ucs_status_t st = lib.ucp.config_read(nullptr, nullptr, &config); st != UCS_OK) {
    return failure(lib, "ucp_config_read", st, settings);
  }
  for (const auto& s : settings) {
    if (ucs_status_t st = lib.ucp.config_modify(config, s.name.c_str(), s.value.c_str()); st != UCS_OK) {
      lib.ucp.config_release(config);
      return makeError(ErrorCode::kUsage,
                       "UCX rejected UCX_" + s.name + "=" + s.value + ": " + lib.statusText(st));
    }
  }
  ucp_params_t params{};
  params.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_NAME;
  params.features = UCP_FEATURE_TAG;
  params.name = "railkit";
  Worker w;
  ucs_status_t st = lib.init(&params, config, &w.context);
  lib.ucp.config_release(config);
  if (st != UCS_OK) return failure(lib, "ucp_init", st, settings);
  ucp_worker_params_t wparams{};
  wparams.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
  wparams.thread_mode = UCS_THREAD_MODE_SINGLE;
  if (st = lib.ucp.worker_create(w.context, &wparams, &w.worker); st != UCS_OK) {
    lib.ucp.cleanup(w.context);
    return failure(lib, "ucp_worker_create", st, settings);
  }
  return w;
}

void closeWorker(const UcxLibrary& lib, Worker& w, std::vector<ucp_ep_h>& eps, std::vector<void*> requests,
                 bool force, std::chrono::steady_clock::duration limit) {
  if (w.worker != nullptr) {
    for (auto& ep : eps) {
      if (ep == nullptr) continue;
      ucp_request_param_t param{};
      param.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
      param.flags = force ? UCP_EP_CLOSE_FLAG_FORCE : 0;
      void* req = lib.ucp.ep_close_nbx(ep, &param);
      if (req != nullptr && !UCS_PTR_IS_ERR(req)) requests.push_back(req);
      ep = nullptr;
    }
    auto done = [&] {
      for (void* req : requests) {
        if (lib.ucp.request_check_status(req) == UCS_INPROGRESS) return false;
      }
      return true;
    };
    auto deadline = std::chrono::steady_clock::now() + limit;
    while (!done() && std::chrono::steady_clock::now() < deadline) {
      if (lib.ucp.worker_progress(w.worker) == 0) sched_yield();
    }
    for (void* req : requests) lib.ucp.request_free(req);  // an unfinished one is released when it ends
    lib.ucp.worker_destroy(w.worker);
    w.worker = nullptr;
  }
  if (w.context != nullptr) lib.ucp.cleanup(w.context);
  w.context = nullptr;
}

}  // namespace railkit::bench::ucx
