#pragma once
// UCX (libucp.so.0, libucs.so.0), opened with dlopen when a ucx run starts,
// never linked. Why: the release binary must run on any node with nothing but
// glibc (a node without UCX still runs every other command and the tcp and
// nccl backends), and where UCX is there, the image's own UCX (HPC-X, MOFED's,
// a distribution's) is the one that knows its NICs. railkit is compiled
// against UCX's headers (types, constants, macros such as ucp_dt_make_contig);
// the function table below takes each declaration from those headers.
//
// Where the libraries are looked for, in order (libucs first, so a libucp
// from DIR finds DIR's libucs already loaded; each soname, libucp.so.0 then
// libucp.so, at one place before the next):
//   1. --ucx-lib DIR (or RAILKIT_UCX_LIB, read by the CLI);
//   2. the loader's own search (LD_LIBRARY_PATH, ld.so.cache, /usr/lib...).
// A miss is kUnavailable with one line naming every place searched; so is a
// library lacking a symbol railkit calls, and a UCX whose API version differs
// from the headers' in major or is older in minor (ucp_get_version).

#include <ucp/api/ucp.h>

#include <memory>
#include <string>

#include "core/result.h"

namespace railkit::bench::ucx {

struct UcpFunctions {
  decltype(&::ucp_get_version) get_version;
  decltype(&::ucp_init_version) init_version;
  decltype(&::ucp_cleanup) cleanup;
  decltype(&::ucp_config_read) config_read;
  decltype(&::ucp_config_modify) config_modify;
  decltype(&::ucp_config_release) config_release;
  decltype(&::ucp_worker_create) worker_create;
  decltype(&::ucp_worker_destroy) worker_destroy;
  decltype(&::ucp_worker_get_address) worker_get_address;
  decltype(&::ucp_worker_release_address) worker_release_address;
  decltype(&::ucp_worker_progress) worker_progress;
  decltype(&::ucp_ep_create) ep_create;
  decltype(&::ucp_ep_close_nbx) ep_close_nbx;
  decltype(&::ucp_request_cancel) request_cancel;
  decltype(&::ucp_request_check_status) request_check_status;
  decltype(&::ucp_request_free) request_free;
  decltype(&::ucp_tag_send_nbx) tag_send_nbx;
  decltype(&::ucp_tag_msg_recv_nbx) tag_msg_recv_nbx;
  decltype(&::ucp_tag_probe_nb) tag_probe_nb;
};

struct UcsFunctions {
  decltype(&::ucs_status_string) status_string;
};

// Both libraries open, every symbol resolved, the version accepted. The
// handles stay open until the process exits: UCX keeps an async thread and
// memory hooks that must not outlive its code.
struct UcxLibrary {
  UcpFunctions ucp{};
  UcsFunctions ucs{};
  std::string ucp_path;  // what was opened, for messages
  std::string ucs_path;
  unsigned major = 0, minor = 0, release = 0;  // ucp_get_version

  // ucp.h's ucp_init is an inline wrapper passing the headers' API version.
  ucs_status_t init(const ucp_params_t* params, const ucp_config_t* config, ucp_context_h* context) const {
    return ucp.init_version(UCP_API_MAJOR, UCP_API_MINOR, params, config, context);
  }
  const char* statusText(ucs_status_t status) const { return ucs.status_string(status); }
};

// Opens and checks both libraries. `loader_path` false searches only DIR (tests).
Result<std::shared_ptr<const UcxLibrary>> loadUcx(const std::string& ucx_lib_dir, bool loader_path = true);

// The version rule alone: the same major as the headers (UCP_API_MAJOR) and
// at least their minor. kUnavailable, one line naming `path` and both versions.
Status checkUcxVersion(const std::string& path, unsigned major, unsigned minor, unsigned release);

}  // namespace railkit::bench::ucx
