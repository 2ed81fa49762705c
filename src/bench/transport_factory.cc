// Maps --backend to a constructor: one line per backend. Backends built
// behind a feature macro add their line inside its #ifdef.
#include <functional>

#include "bench/tcp/transport.h"
#include "bench/transport.h"

#ifdef RAILKIT_HAVE_UCX
#include "bench/ucx/ucx_transport.h"
#endif
#ifdef RAILKIT_HAVE_NCCL
#include "bench/nccl/nccl_transport.h"
#endif

namespace railkit::bench {
namespace {

using Factory = Result<std::unique_ptr<Transport>> (*)(Bootstrap&, const TransportOptions&);

struct BackendEntry {
  const char* name;
  Factory make;
};

const BackendEntry kBackends[] = {
    {"tcp", &makeTcpTransport},
#ifdef RAILKIT_HAVE_UCX
    {"ucx", &makeUcxTransport},
#endif
#ifdef RAILKIT_HAVE_NCCL
    {"nccl", &makeNcclTransport},
#endif
};

}  // namespace

Result<std::unique_ptr<Transport>> makeTransport(const std::string& backend, Bootstrap& bootstrap,
                                                 const TransportOptions& options) {
  for (const auto& entry : kBackends) {
    if (backend == entry.name) return entry.make(bootstrap, options);
  }
  if (backend == "ucx" || backend == "nccl") {
    return makeError(ErrorCode::kUnavailable, "backend '" + backend + "' was not built into this railkit");
  }
  return makeError(ErrorCode::kUsage, "unknown --backend '" + backend + "' (expected tcp, ucx or nccl)");
}

Status Transport::waitAll(const std::vector<RequestId>& ids) {
  for (RequestId id : ids) {
    if (auto status = wait(id); !status) return status;
  }
  return okStatus();
}

Status sendRecv(Transport& t, int to, const void* send, std::size_t send_bytes, int from, void* recv,
                std::size_t recv_bytes) {
  std::vector<RequestId> ids;
  if (recv_bytes > 0) {
    auto r = t.postRecv(from, recv, recv_bytes);
    if (!r) return tl::unexpected(r.error());
    ids.push_back(*r);
  }
  if (send_bytes > 0) {
    auto s = t.postSend(to, send, send_bytes);
    if (!s) return tl::unexpected(s.error());
    ids.push_back(*s);
  }
  return t.waitAll(ids);
}

Status disseminationBarrier(Transport& t) {
  char out = 0, in = 0;
  const int rank = t.rank(), size = t.size();
  // log2(n) rounds: in round d each rank sends one byte to rank+d and hears
  // from rank-d, so after the last round every rank has heard from all.
  for (int d = 1; d < size; d <<= 1) {
    if (auto s = sendRecv(t, (rank + d) % size, &out, 1, (rank - d + size) % size, &in, 1); !s) return s;
  }
  return okStatus();
}

}  // namespace railkit::bench
