// dlopen/dlsym of libnccl.so.2 and libcudart into the function tables of
// nccl_api.h. Every symbol is required: a library that lacks one is not a
// usable NCCL (or CUDA runtime) and is reported as such, naming the symbol.
#include <dlfcn.h>
#include <fmt/format.h>

#include "bench/nccl/nccl_api.h"

namespace railkit::bench::nccl {
namespace {

const char* const kNcclSonames[] = {"libnccl.so.2"};
// CUDA 11's runtime soname carries the minor version; 12 and 13 do not.
const char* const kCudartSonames[] = {"libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0"};

struct Opened {
  void* handle = nullptr;
  std::string path;
};

Result<Opened> openFirst(const std::string& dir, const char* const* sonames, std::size_t count,
                         const std::vector<std::string>& wheel_dirs, const std::string& what,
                         bool loader_path) {
  // Every soname under DIR before any soname on the loader path: the
  // directory the user named wins over a system CUDA of another version.
  std::vector<std::string> paths, bare;
  for (std::size_t i = 0; i < count; ++i) {
    auto c = candidatePaths(dir, sonames[i], wheel_dirs);
    bare.push_back(c.back());
    c.pop_back();
    for (auto& p : c) paths.push_back(std::move(p));
  }
  if (loader_path) paths.insert(paths.end(), bare.begin(), bare.end());
  std::vector<std::string> tried;
  std::string last_error;
  for (const auto& path : paths) {
    dlerror();
    if (void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) return Opened{h, path};
    const char* e = dlerror();
    // A file that exists but fails to load is worth its own message (wrong
    // architecture, a missing dependency); "not found" for every candidate is not.
    if (e != nullptr && std::string(e).find("No such file") == std::string::npos) last_error = e;
    if (path.find('/') != std::string::npos) tried.push_back(path);
  }
  std::string searched;
  for (const auto& t : tried) searched += (searched.empty() ? "" : ", ") + t;
  if (loader_path) searched += searched.empty() ? "the loader path" : ", the loader path";
  return makeError(
      ErrorCode::kUnavailable,
      fmt::format("nccl backend: cannot load {} (searched {}){}; install NCCL and the CUDA "
                  "runtime or point --nccl-lib at their directory (a pip site-packages directory works)",
                  what, searched, last_error.empty() ? "" : ": " + last_error));
}

template <class Fn>
Status bind(void* handle, const char* symbol, const std::string& path, Fn*& out) {
  dlerror();
  void* p = dlsym(handle, symbol);
  if (p == nullptr) {
    return makeError(ErrorCode::kUnavailable, fmt::format("nccl backend: {} has no symbol {}", path, symbol));
  }
  out = reinterpret_cast<Fn*>(p);
  return okStatus();
}

Status bindNccl(const Opened& lib, NcclFunctions& f) {
  const std::string& p = lib.path;
  void* h = lib.handle;
  for (Status s :
       {bind(h, "ncclGetVersion", p, f.getVersion), bind(h, "ncclGetUniqueId", p, f.getUniqueId),
        bind(h, "ncclCommInitRank", p, f.commInitRank), bind(h, "ncclCommDestroy", p, f.commDestroy),
        bind(h, "ncclCommAbort", p, f.commAbort), bind(h, "ncclCommGetAsyncError", p, f.commGetAsyncError),
        bind(h, "ncclGetErrorString", p, f.getErrorString), bind(h, "ncclAllReduce", p, f.allReduce),
        bind(h, "ncclAllGather", p, f.allGather), bind(h, "ncclReduceScatter", p, f.reduceScatter),
        bind(h, "ncclBroadcast", p, f.broadcast), bind(h, "ncclReduce", p, f.reduce),
        bind(h, "ncclSend", p, f.send), bind(h, "ncclRecv", p, f.recv),
        bind(h, "ncclGroupStart", p, f.groupStart), bind(h, "ncclGroupEnd", p, f.groupEnd)}) {
    if (!s) return s;
  }
  return okStatus();
}

Status bindCuda(const Opened& lib, CudaFunctions& f) {
  const std::string& p = lib.path;
  void* h = lib.handle;
  for (Status s :
       {bind(h, "cudaGetDeviceCount", p, f.getDeviceCount), bind(h, "cudaSetDevice", p, f.setDevice),
        bind(h, "cudaMalloc", p, f.malloc), bind(h, "cudaFree", p, f.free),
        bind(h, "cudaMemcpy", p, f.memcpy), bind(h, "cudaStreamCreate", p, f.streamCreate),
        bind(h, "cudaStreamSynchronize", p, f.streamSynchronize),
        bind(h, "cudaStreamQuery", p, f.streamQuery), bind(h, "cudaEventCreate", p, f.eventCreate),
        bind(h, "cudaEventRecord", p, f.eventRecord), bind(h, "cudaEventSynchronize", p, f.eventSynchronize),
        bind(h, "cudaEventElapsedTime", p, f.eventElapsedTime),
        bind(h, "cudaGetErrorString", p, f.getErrorString)}) {
    if (!s) return s;
  }
  return okStatus();
}

}  // namespace

std::vector<std::string> candidatePaths(const std::string& dir, const std::string& soname,
                                        const std::vector<std::string>& wheel_dirs) {
  std::vector<std::string> out;
  if (!dir.empty()) {
    std::string base = dir.back() == '/' ? dir : dir + "/";
    out.push_back(base + soname);
    for (const auto& sub : wheel_dirs) out.push_back(base + sub + "/" + soname);
  }
  out.push_back(soname);
  return out;
}

Result<std::shared_ptr<const NcclLibrary>> loadNccl(const std::string& dir, bool loader_path) {
  auto lib = std::make_shared<NcclLibrary>();
  auto nccl = openFirst(dir, kNcclSonames, std::size(kNcclSonames), {"nvidia/nccl/lib", "nvidia/cu13/lib"},
                        "libnccl.so.2", loader_path);
  if (!nccl) return tl::unexpected(nccl.error());
  if (auto s = bindNccl(*nccl, lib->nccl); !s) return tl::unexpected(s.error());
  auto cuda = openFirst(dir, kCudartSonames, std::size(kCudartSonames),
                        {"nvidia/cuda_runtime/lib", "nvidia/cu13/lib"},
                        "the CUDA runtime (libcudart.so.13/.12/.11.0)", loader_path);
  if (!cuda) return tl::unexpected(cuda.error());
  if (auto s = bindCuda(*cuda, lib->cuda); !s) return tl::unexpected(s.error());
  lib->cuda_path = cuda->path;
  lib->nccl_path = nccl->path;
  if (lib->nccl.getVersion(&lib->version) != 0) lib->version = 0;
  return std::shared_ptr<const NcclLibrary>(std::move(lib));
}

Status probeNccl(const std::string& dir, int gpus_needed) {
  auto lib = loadNccl(dir);
  if (!lib) return tl::unexpected(lib.error());
  int devices = 0;
  if (int e = (*lib)->cuda.getDeviceCount(&devices); e != 0) {
    return makeError(ErrorCode::kUnavailable, fmt::format("nccl backend: cudaGetDeviceCount failed: {}",
                                                          (*lib)->cuda.getErrorString(e)));
  }
  if (devices < gpus_needed) {
    return makeError(
        ErrorCode::kUnavailable,
        fmt::format("nccl backend: {} rank(s) on this host need {} GPU(s), one per rank, but the CUDA "
                    "runtime sees {} (check CUDA_VISIBLE_DEVICES)",
                    gpus_needed, gpus_needed, devices));
  }
  return okStatus();
}

std::string ncclVersionText(int v) {
  if (v <= 0) return "NCCL (version unknown)";
  // 2.9 changed the encoding from MAJOR*1000+MINOR*100+PATCH to MAJOR*10000+MINOR*100+PATCH.
  if (v >= 10000) return fmt::format("NCCL {}.{}.{}", v / 10000, (v % 10000) / 100, v % 100);
  return fmt::format("NCCL {}.{}.{}", v / 1000, (v % 1000) / 100, v % 100);
}

}  // namespace railkit::bench::nccl
