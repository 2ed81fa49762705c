#pragma once
// NCCL and the CUDA runtime, loaded at run time. railkit is built without any
// CUDA header or library: this file declares only what the nccl backend
// calls, with the C ABI both libraries document (opaque handles, enums with
// NCCL's and CUDA's published values, a 128-byte ncclUniqueId), and
// loadNccl() fills a table of function pointers with dlopen/dlsym.
//
// Where the libraries are looked for, in order (every soname of a library,
// libnccl.so.2 or libcudart.so.{13,12,11.0}, at one place before the next):
//   1. --nccl-lib DIR: DIR itself, then the pip-wheel layout under DIR
//      (nvidia/nccl/lib, nvidia/cuda_runtime/lib, nvidia/cu13/lib), so DIR may
//      be a Python site-packages directory;
//   2. the loader's own search (LD_LIBRARY_PATH, ld.so.cache, /usr/lib...).
// A miss is kUnavailable with one line naming every place searched.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/result.h"

namespace railkit::bench::nccl {

// --- NCCL (nccl.h) ---
using ncclResult_t = int;  // 0 ncclSuccess
using ncclComm_t = struct ncclComm*;
inline constexpr std::size_t kUniqueIdBytes = 128;  // NCCL_UNIQUE_ID_BYTES
struct ncclUniqueId {
  char internal[kUniqueIdBytes];
};
// ncclDataType_t
enum NcclDataType : int {
  kNcclInt8 = 0,
  kNcclUint8 = 1,
  kNcclInt32 = 2,
  kNcclUint32 = 3,
  kNcclInt64 = 4,
  kNcclUint64 = 5,
  kNcclFloat16 = 6,
  kNcclFloat32 = 7,
  kNcclFloat64 = 8,
};
// ncclRedOp_t (note: max before min)
enum NcclRedOp : int { kNcclSum = 0, kNcclProd = 1, kNcclMax = 2, kNcclMin = 3 };

// --- CUDA runtime (cuda_runtime_api.h) ---
using cudaError_t = int;  // 0 cudaSuccess
inline constexpr cudaError_t kCudaErrorNotReady = 600;
using cudaStream_t = struct CUstream_st*;
using cudaEvent_t = struct CUevent_st*;
enum CudaMemcpyKind : int { kCudaHostToDevice = 1, kCudaDeviceToHost = 2 };

struct NcclFunctions {
  ncclResult_t (*getVersion)(int*);
  ncclResult_t (*getUniqueId)(ncclUniqueId*);
  ncclResult_t (*commInitRank)(ncclComm_t*, int, ncclUniqueId, int);
  ncclResult_t (*commDestroy)(ncclComm_t);
  ncclResult_t (*commAbort)(ncclComm_t);
  ncclResult_t (*commGetAsyncError)(ncclComm_t, ncclResult_t*);
  const char* (*getErrorString)(ncclResult_t);
  ncclResult_t (*allReduce)(const void*, void*, std::size_t, int, int, ncclComm_t, cudaStream_t);
  ncclResult_t (*allGather)(const void*, void*, std::size_t, int, ncclComm_t, cudaStream_t);
  ncclResult_t (*reduceScatter)(const void*, void*, std::size_t, int, int, ncclComm_t, cudaStream_t);
  ncclResult_t (*broadcast)(const void*, void*, std::size_t, int, int, ncclComm_t, cudaStream_t);
  ncclResult_t (*reduce)(const void*, void*, std::size_t, int, int, int, ncclComm_t, cudaStream_t);
  ncclResult_t (*send)(const void*, std::size_t, int, int, ncclComm_t, cudaStream_t);
  ncclResult_t (*recv)(void*, std::size_t, int, int, ncclComm_t, cudaStream_t);
  ncclResult_t (*groupStart)();
  ncclResult_t (*groupEnd)();
};

struct CudaFunctions {
  cudaError_t (*getDeviceCount)(int*);
  cudaError_t (*setDevice)(int);
  cudaError_t (*malloc)(void**, std::size_t);
  cudaError_t (*free)(void*);
  cudaError_t (*memcpy)(void*, const void*, std::size_t, int);
  cudaError_t (*streamCreate)(cudaStream_t*);
  cudaError_t (*streamSynchronize)(cudaStream_t);
  cudaError_t (*streamQuery)(cudaStream_t);  // kCudaErrorNotReady while work is pending
  cudaError_t (*eventCreate)(cudaEvent_t*);
  cudaError_t (*eventRecord)(cudaEvent_t, cudaStream_t);
  cudaError_t (*eventSynchronize)(cudaEvent_t);
  cudaError_t (*eventElapsedTime)(float*, cudaEvent_t, cudaEvent_t);
  const char* (*getErrorString)(cudaError_t);
};

// Both libraries open, every symbol resolved. Closing the handles is left to
// process exit: NCCL keeps proxy threads that must not outlive its code.
struct NcclLibrary {
  NcclFunctions nccl{};
  CudaFunctions cuda{};
  std::string nccl_path;  // what was opened, for the JSON and messages
  std::string cuda_path;
  int version = 0;  // ncclGetVersion, e.g. 22105
};

// Every path tried for `soname`, in order (the last entry is the bare name,
// handed to the loader's own search).
std::vector<std::string> candidatePaths(const std::string& nccl_lib_dir, const std::string& soname,
                                        const std::vector<std::string>& wheel_dirs);

// Opens and resolves both libraries. kUnavailable: one line naming the
// library, every place searched and the loader's last complaint.
// `loader_path` false searches only under the directory (tests).
Result<std::shared_ptr<const NcclLibrary>> loadNccl(const std::string& nccl_lib_dir, bool loader_path = true);

// Loads the libraries and asks the CUDA runtime for its devices: the errors a
// rank would meet first (no library, no driver, no GPU). This initialises
// CUDA, so a process that forks ranks afterwards must call it in a child.
// `gpus_needed`: the ranks this host will run (one GPU each).
Status probeNccl(const std::string& nccl_lib_dir, int gpus_needed);

// "NCCL 2.21.5" from ncclGetVersion's integer (old and new encodings).
std::string ncclVersionText(int version);

}  // namespace railkit::bench::nccl
