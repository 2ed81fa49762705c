#include "bench/dl_open.h"

#include <fmt/format.h>
#include <link.h>

namespace railkit::bench::dl {
namespace {

// dlerror() for a candidate that is simply not there reads
// "CANDIDATE: cannot open shared object file: No such file or directory";
// a library that is there but needs a missing one names the missing one, and
// that is worth showing.
bool notThere(const std::string& candidate, const std::string& error) {
  return error.rfind(candidate + ":", 0) == 0 && error.find("No such file") != std::string::npos;
}

// A bare soname found by the loader, as the file it opened: messages then say
// which UCX or MPI of several on the machine it was.
std::string whereLoaded(void* handle, const std::string& candidate) {
  if (candidate.find('/') != std::string::npos) return candidate;
  link_map* map = nullptr;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || map == nullptr || map->l_name == nullptr ||
      map->l_name[0] == '\0')
    return candidate;
  return map->l_name;
}

}  // namespace

std::vector<std::string> searchOrder(const std::string& dir, const std::vector<std::string>& sonames,
                                     bool loader_path) {
  std::vector<std::string> out;
  if (!dir.empty()) {
    std::string base = dir.back() == '/' ? dir : dir + "/";
    for (const auto& s : sonames) out.push_back(base + s);
  }
  if (loader_path) out.insert(out.end(), sonames.begin(), sonames.end());
  return out;
}

Result<Opened> openFirst(const std::string& dir, const std::vector<std::string>& sonames, bool loader_path,
                         int flags, const Miss& miss) {
  std::string searched, complaint;
  for (const auto& candidate : searchOrder(dir, sonames, loader_path)) {
    dlerror();
    if (void* h = dlopen(candidate.c_str(), flags)) return Opened{h, whereLoaded(h, candidate)};
    const char* e = dlerror();
    std::string error = e != nullptr ? e : "";
    if (!error.empty() && !notThere(candidate, error)) complaint = error;
    if (candidate.find('/') != std::string::npos) searched += (searched.empty() ? "" : ", ") + candidate;
  }
  if (loader_path) searched += searched.empty() ? "the loader path" : ", the loader path";
  return makeError(ErrorCode::kUnavailable,
                   fmt::format("{}: cannot load {} (searched {}){}; {}", miss.prefix, miss.what, searched,
                               complaint.empty() ? "" : ": " + complaint, miss.hint));
}

Result<void*> symbol(const Opened& lib, const char* name, const std::string& prefix) {
  dlerror();
  void* p = dlsym(lib.handle, name);
  if (p == nullptr) {
    return makeError(ErrorCode::kUnavailable, fmt::format("{}: {} has no symbol {}", prefix, lib.path, name));
  }
  return p;
}

}  // namespace railkit::bench::dl
