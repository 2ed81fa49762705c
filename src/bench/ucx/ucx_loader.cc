// dlopen/dlsym of libucs.so.0 and libucp.so.0 into ucx_api.h's tables. Every
// symbol is required: a library lacking one is not a UCX railkit can drive,
// and is reported naming the symbol.
#include <fmt/format.h>

#include "bench/dl_open.h"
#include "bench/ucx/ucx_api.h"

namespace railkit::bench::ucx {
namespace {

constexpr const char* kPrefix = "ucx backend";
constexpr const char* kHint = "install UCX or point --ucx-lib (RAILKIT_UCX_LIB) at its directory";

Status bindUcp(const dl::Opened& lib, UcpFunctions& f) {
  const std::string p = kPrefix;
  for (Status s :
       {dl::bind(lib, "ucp_get_version", p, f.get_version),
        dl::bind(lib, "ucp_init_version", p, f.init_version), dl::bind(lib, "ucp_cleanup", p, f.cleanup),
        dl::bind(lib, "ucp_config_read", p, f.config_read),
        dl::bind(lib, "ucp_config_modify", p, f.config_modify),
        dl::bind(lib, "ucp_config_release", p, f.config_release),
        dl::bind(lib, "ucp_worker_create", p, f.worker_create),
        dl::bind(lib, "ucp_worker_destroy", p, f.worker_destroy),
        dl::bind(lib, "ucp_worker_get_address", p, f.worker_get_address),
        dl::bind(lib, "ucp_worker_release_address", p, f.worker_release_address),
        dl::bind(lib, "ucp_worker_progress", p, f.worker_progress),
        dl::bind(lib, "ucp_ep_create", p, f.ep_create), dl::bind(lib, "ucp_ep_close_nbx", p, f.ep_close_nbx),
        dl::bind(lib, "ucp_request_cancel", p, f.request_cancel),
        dl::bind(lib, "ucp_request_check_status", p, f.request_check_status),
        dl::bind(lib, "ucp_request_free", p, f.request_free),
        dl::bind(lib, "ucp_tag_send_nbx", p, f.tag_send_nbx),
        dl::bind(lib, "ucp_tag_msg_recv_nbx", p, f.tag_msg_recv_nbx),
        dl::bind(lib, "ucp_tag_probe_nb", p, f.tag_probe_nb)}) {
    if (!s) return s;
  }
  return okStatus();
}

}  // namespace

Status checkUcxVersion(const std::string& path, unsigned major, unsigned minor, unsigned release) {
  // UCP keeps its API compatible within a major version and only adds in a
  // minor one, so a newer minor serves headers of an older one, not the reverse.
  if (major == UCP_API_MAJOR && minor >= UCP_API_MINOR) return okStatus();
  return makeError(
      ErrorCode::kUnavailable,
      fmt::format("{}: {} is UCX {}.{}.{}, but this railkit was built with the UCX {}.{} headers "
                  "and needs UCX {}.{} or a later {}.x; {}",
                  kPrefix, path, major, minor, release, UCP_API_MAJOR, UCP_API_MINOR, UCP_API_MAJOR,
                  UCP_API_MINOR, UCP_API_MAJOR, kHint));
}

Result<std::shared_ptr<const UcxLibrary>> loadUcx(const std::string& dir, bool loader_path) {
  auto lib = std::make_shared<UcxLibrary>();
  // libucs first: a libucp opened from DIR then resolves its libucs.so.0 to
  // this one, not to another UCX on the loader path.
  auto ucs = dl::openFirst(dir, {"libucs.so.0", "libucs.so"}, loader_path, RTLD_NOW | RTLD_LOCAL,
                           {kPrefix, "libucs.so.0", kHint});
  if (!ucs) return tl::unexpected(ucs.error());
  if (auto s = dl::bind(*ucs, "ucs_status_string", kPrefix, lib->ucs.status_string); !s)
    return tl::unexpected(s.error());
  auto ucp = dl::openFirst(dir, {"libucp.so.0", "libucp.so"}, loader_path, RTLD_NOW | RTLD_LOCAL,
                           {kPrefix, "libucp.so.0", kHint});
  if (!ucp) return tl::unexpected(ucp.error());
  if (auto s = bindUcp(*ucp, lib->ucp); !s) return tl::unexpected(s.error());
  lib->ucp.get_version(&lib->major, &lib->minor, &lib->release);
  if (auto s = checkUcxVersion(ucp->path, lib->major, lib->minor, lib->release); !s)
    return tl::unexpected(s.error());
  lib->ucp_path = ucp->path;
  lib->ucs_path = ucs->path;
  return std::shared_ptr<const UcxLibrary>(std::move(lib));
}

}  // namespace railkit::bench::ucx
