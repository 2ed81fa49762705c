#pragma once
// Finding a C library at run time: the search the ucx and mpi loaders share
// (ucx/ucx_api.h, mpi/mpi_api.h; nccl/nccl_loader.cc has its own, with the
// pip-wheel layout). A user's directory comes first so it wins over whatever
// the image has; then the loader's own search (LD_LIBRARY_PATH, RUNPATH,
// ld.so.cache, the system directories). Versioned sonames come before the
// unversioned development link at each place.

#include <dlfcn.h>

#include <string>
#include <vector>

#include "core/result.h"

namespace railkit::bench::dl {

struct Opened {
  void* handle = nullptr;
  std::string path;  // the file that opened (a bare soname the loader found: where it found it)
};

// Every soname under `dir` (when not empty), then every bare soname (when
// `loader_path`): the order the candidates are tried in.
std::vector<std::string> searchOrder(const std::string& dir, const std::vector<std::string>& sonames,
                                     bool loader_path);

// What to say when nothing opens: "{prefix}: cannot load {what} (searched
// ...){: the loader's complaint}; {hint}".
struct Miss {
  std::string prefix;  // "ucx backend"
  std::string what;    // "libucp.so.0"
  std::string hint;    // "install UCX or point --ucx-lib ..."
};

// Opens the first candidate of searchOrder() that loads, with `flags`
// (RTLD_NOW plus RTLD_LOCAL or RTLD_GLOBAL). kUnavailable, one line, naming
// every path searched ("the loader path" for the bare names) and, when a
// library was there but would not load (a missing dependency, another
// architecture), the loader's last such complaint.
Result<Opened> openFirst(const std::string& dir, const std::vector<std::string>& sonames, bool loader_path,
                         int flags, const Miss& miss);

// The address of `symbol` in `lib`; kUnavailable "{prefix}: {path} has no
// symbol {symbol}" when it lacks it (the library is not what it claims).
Result<void*> symbol(const Opened& lib, const char* name, const std::string& prefix);

// symbol() into a typed function pointer: `out` keeps the declaration of the
// headers railkit was built with (decltype of the real function).
template <class Fn>
Status bind(const Opened& lib, const char* name, const std::string& prefix, Fn*& out) {
  auto p = symbol(lib, name, prefix);
  if (!p) return tl::unexpected(p.error());
  out = reinterpret_cast<Fn*>(*p);
  return okStatus();
}

}  // namespace railkit::bench::dl
