// The nccl backend (see nccl_transport.h): communicator set-up, the
// CollectiveEngine that runs whole collectives, and staged point-to-point.
#include "bench/nccl/nccl_transport.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <map>
#include <thread>

#include "bench/collective_engine.h"
#include "bench/nccl/nccl_api.h"
#include "bench/nccl/nccl_env.h"
#include "core/strings.h"

namespace railkit::bench {
namespace {

using nccl::NcclLibrary;

int ncclType(DataType t) {
  switch (t) {
    case DataType::kInt8: return nccl::kNcclInt8;
    case DataType::kUint8: return nccl::kNcclUint8;
    case DataType::kInt32: return nccl::kNcclInt32;
    case DataType::kUint32: return nccl::kNcclUint32;
    case DataType::kInt64: return nccl::kNcclInt64;
    case DataType::kUint64: return nccl::kNcclUint64;
    case DataType::kFloat: return nccl::kNcclFloat32;
    case DataType::kDouble: return nccl::kNcclFloat64;
  }
  return nccl::kNcclFloat32;
}

int ncclOp(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum: return nccl::kNcclSum;
    case ReduceOp::kProd: return nccl::kNcclProd;
    case ReduceOp::kMin: return nccl::kNcclMin;
    case ReduceOp::kMax: return nccl::kNcclMax;
  }
  return nccl::kNcclSum;
}

struct DeviceBlock {
  HostBlock host;
  void* device = nullptr;
};

struct PendingOp {
  RequestId id;
  bool send;
  int peer;
  void* host;
  std::size_t bytes;
};

class NcclTransport final : public Transport, public CollectiveEngine {
 public:
  NcclTransport(std::shared_ptr<const NcclLibrary> lib, Bootstrap& boot, TransportOptions options)
      : lib_(std::move(lib)), boot_(boot), options_(std::move(options)) {
    infos_.resize(static_cast<std::size_t>(boot.size()));
  }
  ~NcclTransport() override {
    freeBlocks();
    if (comm_ != nullptr) lib_->nccl.commDestroy(comm_);
  }

  const char* name() const override { return "nccl"; }
  TransportCaps caps() const override { return {true, true, false, true}; }
  int rank() const override { return boot_.rank(); }
  int size() const override { return boot_.size(); }
  const PeerInfo& peer(int r) const override { return infos_[static_cast<std::size_t>(r)]; }
  Status barrier() override { return boot_.barrier(); }

  Status init(std::optional<int> local_rank_hint);

  Result<RequestId> postSend(int peer, const void* data, std::size_t bytes) override {
    return post(true, peer, const_cast<void*>(data), bytes);
  }
  Result<RequestId> postRecv(int peer, void* data, std::size_t bytes) override {
    return post(false, peer, data, bytes);
  }
  Status wait(RequestId id) override {
    if (id < first_pending_) return okStatus();
    return flush();
  }
  Status waitAll(const std::vector<RequestId>&) override { return flush(); }

  Status bind(CollectiveOp op, const CollectiveArgs& args, const std::vector<HostBlock>& blocks) override;
  Status upload() override;
  Result<double> launch(int iters) override;
  Status download() override;

 private:
  Status cudaCheck(nccl::cudaError_t e, const char* what) const {
    if (e == 0) return okStatus();
    return makeError(ErrorCode::kUnavailable, fmt::format("nccl backend: {} failed on rank {}: {}", what,
                                                          rank(), lib_->cuda.getErrorString(e)));
  }
  Status ncclCheck(nccl::ncclResult_t r, const char* what) const {
    if (r == 0) return okStatus();
    return makeError(ErrorCode::kPeerLost, fmt::format("nccl backend: {} failed on rank {}: {}", what, rank(),
                                                       lib_->nccl.getErrorString(r)));
  }
  Result<RequestId> post(bool send, int peer, void* data, std::size_t bytes) {
    RequestId id = next_id_++;
    if (bytes > 0) pending_.push_back(PendingOp{id, send, peer, data, bytes});
    return id;
  }
  Status flush();
  Status synchronize(const char* what);
  Status enqueue();
  void* deviceFor(const void* host) const;
  void freeBlocks() {
    for (auto& b : blocks_) {
      if (b.device != nullptr) lib_->cuda.free(b.device);
    }
    blocks_.clear();
  }

  std::shared_ptr<const NcclLibrary> lib_;
  Bootstrap& boot_;
  TransportOptions options_;
  std::vector<PeerInfo> infos_;
  nccl::ncclComm_t comm_ = nullptr;
  nccl::cudaStream_t stream_ = nullptr;
  nccl::cudaEvent_t start_ = nullptr, stop_ = nullptr;
  int device_ = 0;
  std::vector<DeviceBlock> blocks_;
  CollectiveOp op_ = CollectiveOp::kAllReduce;
  CollectiveArgs args_;
  std::vector<PendingOp> pending_;
  RequestId next_id_ = 1, first_pending_ = 1;
};

Status NcclTransport::init(std::optional<int> local_rank_hint) {
  nccl::ncclUniqueId id{};
  std::string id_hex = "-";
  Status mine = okStatus();
  if (rank() == 0) {
    mine = ncclCheck(lib_->nccl.getUniqueId(&id), "ncclGetUniqueId");
    id_hex = mine ? hexEncode(id.internal, sizeof id.internal) : "!";
  }
  const std::string host = options_.hostname.empty() ? "-" : options_.hostname;
  auto all = boot_.allgather(
      fmt::format("{} {} {}", host, options_.data_interface.empty() ? "-" : options_.data_interface, id_hex));
  if (!all) return tl::unexpected(all.error());
  if (!mine) return mine;
  int local_rank = 0;
  for (int r = 0; r < size(); ++r) {
    auto f = split((*all)[static_cast<std::size_t>(r)], ' ');
    if (f.size() != 3)
      return makeError(ErrorCode::kPeerLost, fmt::format("rank {} sent a malformed nccl hello", r));
    infos_[static_cast<std::size_t>(r)] = PeerInfo{r, std::string(f[0]), std::string(f[1]), "cuda"};
    if (r < rank() && f[0] == host) ++local_rank;
  }
  if (!hexDecode(split((*all)[0], ' ')[2], id.internal, sizeof id.internal)) {
    return makeError(ErrorCode::kUnavailable, "nccl backend: rank 0 could not create the ncclUniqueId");
  }
  if (local_rank_hint) local_rank = *local_rank_hint;
  device_ = local_rank;
  // Device set-up may fail on one rank only; every rank learns of it before
  // ncclCommInitRank, which would otherwise wait for the missing rank forever.
  int devices = 0;
  mine = cudaCheck(lib_->cuda.getDeviceCount(&devices), "cudaGetDeviceCount");
  if (mine && local_rank >= devices) {
    mine = makeError(
        ErrorCode::kUnavailable,
        fmt::format("nccl backend: rank {} is local rank {} on {} but only {} GPU(s) are visible (one GPU "
                    "per rank; check CUDA_VISIBLE_DEVICES and the ranks per node)",
                    rank(), local_rank, host, devices));
  }
  if (mine) mine = cudaCheck(lib_->cuda.setDevice(device_), "cudaSetDevice");
  if (mine) mine = cudaCheck(lib_->cuda.streamCreate(&stream_), "cudaStreamCreate");
  if (mine) mine = cudaCheck(lib_->cuda.eventCreate(&start_), "cudaEventCreate");
  if (mine) mine = cudaCheck(lib_->cuda.eventCreate(&stop_), "cudaEventCreate");
  auto verdicts = boot_.allgather(mine ? "ok" : mine.error().message);
  if (!verdicts) return tl::unexpected(verdicts.error());
  if (!mine) return mine;
  for (int r = 0; r < size(); ++r) {
    const std::string& v = (*verdicts)[static_cast<std::size_t>(r)];
    if (v == "ok") continue;
    std::string_view why = v;
    if (startsWith(why, "nccl backend: ")) why.remove_prefix(14);
    return makeError(ErrorCode::kUnavailable,
                     fmt::format("nccl backend: rank {} could not start: {}", r, why));
  }
  infos_[static_cast<std::size_t>(rank())].address = fmt::format("cuda:{}", device_);
  return ncclCheck(lib_->nccl.commInitRank(&comm_, size(), id, rank()), "ncclCommInitRank");
}

// NCCL work is asynchronous: poll the stream so a lost peer turns into an
// aborted communicator and kTimeout instead of a hang.
Status NcclTransport::synchronize(const char* what) {
  auto deadline = std::chrono::steady_clock::now() + options_.stall_timeout;
  for (int spins = 0;; ++spins) {
    nccl::cudaError_t e = lib_->cuda.streamQuery(stream_);
    if (e == 0) return okStatus();
    if (e != nccl::kCudaErrorNotReady) return cudaCheck(e, what);
    nccl::ncclResult_t async = 0;
    if (lib_->nccl.commGetAsyncError(comm_, &async) == 0 && async != 0) {
      lib_->nccl.commAbort(comm_);
      comm_ = nullptr;
      return ncclCheck(async, what);
    }
    if (std::chrono::steady_clock::now() > deadline) {
      lib_->nccl.commAbort(comm_);
      comm_ = nullptr;
      return makeError(
          ErrorCode::kTimeout,
          fmt::format("nccl backend: {} on rank {} did not finish within the stall timeout of {} s "
                      "(a peer is lost or the network is stuck; NCCL_SOCKET_IFNAME={})",
                      what, rank(), options_.stall_timeout.count() / 1000, options_.data_interface));
    }
    if (spins > 1000) std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

Status NcclTransport::flush() {
  if (pending_.empty()) return okStatus();
  if (comm_ == nullptr) return makeError(ErrorCode::kPeerLost, "nccl backend: the communicator was aborted");
  std::vector<void*> staged(pending_.size(), nullptr);
  auto release = [&] {
    for (void* p : staged) {
      if (p != nullptr) lib_->cuda.free(p);
    }
  };
  Status status = okStatus();
  for (std::size_t i = 0; i < pending_.size() && status; ++i) {
    const PendingOp& op = pending_[i];
    status = cudaCheck(lib_->cuda.malloc(&staged[i], op.bytes), "cudaMalloc");
    if (status && op.send) {
      status =
          cudaCheck(lib_->cuda.memcpy(staged[i], op.host, op.bytes, nccl::kCudaHostToDevice), "cudaMemcpy");
    }
  }
  if (status) status = ncclCheck(lib_->nccl.groupStart(), "ncclGroupStart");
  for (std::size_t i = 0; i < pending_.size() && status; ++i) {
    const PendingOp& op = pending_[i];
    status = op.send
                 ? ncclCheck(lib_->nccl.send(staged[i], op.bytes, nccl::kNcclUint8, op.peer, comm_, stream_),
                             "ncclSend")
                 : ncclCheck(lib_->nccl.recv(staged[i], op.bytes, nccl::kNcclUint8, op.peer, comm_, stream_),
                             "ncclRecv");
  }
  if (status) status = ncclCheck(lib_->nccl.groupEnd(), "ncclGroupEnd");
  if (status) status = synchronize("send/recv");
  for (std::size_t i = 0; i < pending_.size() && status; ++i) {
    const PendingOp& op = pending_[i];
    if (!op.send)
      status =
          cudaCheck(lib_->cuda.memcpy(op.host, staged[i], op.bytes, nccl::kCudaDeviceToHost), "cudaMemcpy");
  }
  release();
  pending_.clear();
  first_pending_ = next_id_;
  return status;
}

void* NcclTransport::deviceFor(const void* host) const {
  auto* p = static_cast<const char*>(host);
  for (const auto& b : blocks_) {
    auto* base = static_cast<const char*>(b.host.data);
    if (p >= base && p <= base + b.host.bytes) return static_cast<char*>(b.device) + (p - base);
  }
  return nullptr;
}

Status NcclTransport::bind(CollectiveOp op, const CollectiveArgs& args,
                           const std::vector<HostBlock>& blocks) {
  freeBlocks();
  for (const auto& h : blocks) {
    DeviceBlock b{h, nullptr};
    if (auto s = cudaCheck(lib_->cuda.malloc(&b.device, std::max<std::size_t>(h.bytes, 1)), "cudaMalloc");
        !s) {
      return s;
    }
    blocks_.push_back(b);
  }
  op_ = op;
  args_ = args;
  args_.send = deviceFor(args.send);
  args_.recv = deviceFor(args.recv);
  if (args_.send == nullptr || args_.recv == nullptr) {
    return makeError(ErrorCode::kInternal, "nccl backend: collective buffers lie outside the bound blocks");
  }
  return okStatus();
}

Status NcclTransport::upload() {
  for (const auto& b : blocks_) {
    if (auto s = cudaCheck(lib_->cuda.memcpy(b.device, b.host.data, b.host.bytes, nccl::kCudaHostToDevice),
                           "cudaMemcpy");
        !s) {
      return s;
    }
  }
  return okStatus();
}

Status NcclTransport::download() {
  for (const auto& b : blocks_) {
    if (auto s = cudaCheck(lib_->cuda.memcpy(b.host.data, b.device, b.host.bytes, nccl::kCudaDeviceToHost),
                           "cudaMemcpy");
        !s) {
      return s;
    }
  }
  return okStatus();
}

// One collective on the stream, with nccl-tests' argument conventions.
Status NcclTransport::enqueue() {
  const auto& f = lib_->nccl;
  const CollectiveArgs& a = args_;
  int type = ncclType(a.type), op = ncclOp(a.op), n = size(), me = rank();
  std::size_t esize = dataTypeSize(a.type);
  switch (op_) {
    case CollectiveOp::kAllReduce:
      return ncclCheck(f.allReduce(a.send, a.recv, a.recv_count, type, op, comm_, stream_), "ncclAllReduce");
    case CollectiveOp::kAllGather:
      return ncclCheck(f.allGather(a.send, a.recv, a.send_count, type, comm_, stream_), "ncclAllGather");
    case CollectiveOp::kReduceScatter:
      return ncclCheck(f.reduceScatter(a.send, a.recv, a.recv_count, type, op, comm_, stream_),
                       "ncclReduceScatter");
    case CollectiveOp::kBroadcast:
      return ncclCheck(f.broadcast(a.send, a.recv, a.recv_count, type, a.root, comm_, stream_),
                       "ncclBroadcast");
    case CollectiveOp::kReduce:
      return ncclCheck(f.reduce(a.send, a.recv, a.recv_count, type, op, a.root, comm_, stream_),
                       "ncclReduce");
    case CollectiveOp::kAllToAll:
    case CollectiveOp::kSendRecv: {
      if (auto s = ncclCheck(f.groupStart(), "ncclGroupStart"); !s) return s;
      Status s = okStatus();
      if (op_ == CollectiveOp::kSendRecv) {
        s = ncclCheck(f.send(a.send, a.send_count, type, (me + 1) % n, comm_, stream_), "ncclSend");
        if (s)
          s = ncclCheck(f.recv(a.recv, a.recv_count, type, (me - 1 + n) % n, comm_, stream_), "ncclRecv");
      } else {
        std::size_t per = a.send_count / static_cast<std::size_t>(n);
        for (int r = 0; r < n && s; ++r) {
          auto off = static_cast<std::size_t>(r) * per * esize;
          s = ncclCheck(f.send(static_cast<const char*>(a.send) + off, per, type, r, comm_, stream_),
                        "ncclSend");
          if (s)
            s = ncclCheck(f.recv(static_cast<char*>(a.recv) + off, per, type, r, comm_, stream_), "ncclRecv");
        }
      }
      auto end = ncclCheck(f.groupEnd(), "ncclGroupEnd");
      return s ? end : s;
    }
  }
  return makeError(ErrorCode::kInternal, "nccl backend: unknown collective");
}

Result<double> NcclTransport::launch(int iters) {
  if (iters <= 0) return 0.0;
  if (comm_ == nullptr) return makeError(ErrorCode::kPeerLost, "nccl backend: the communicator was aborted");
  if (auto s = cudaCheck(lib_->cuda.eventRecord(start_, stream_), "cudaEventRecord"); !s)
    return tl::unexpected(s.error());
  for (int i = 0; i < iters; ++i) {
    if (auto s = enqueue(); !s) return tl::unexpected(s.error());
  }
  if (auto s = cudaCheck(lib_->cuda.eventRecord(stop_, stream_), "cudaEventRecord"); !s)
    return tl::unexpected(s.error());
  if (auto s = synchronize(collectiveName(op_)); !s) return tl::unexpected(s.error());
  if (auto s = cudaCheck(lib_->cuda.eventSynchronize(stop_), "cudaEventSynchronize"); !s)
    return tl::unexpected(s.error());
  float ms = 0;
  if (auto s = cudaCheck(lib_->cuda.eventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime"); !s) {
    return tl::unexpected(s.error());
  }
  return static_cast<double>(ms) * 1000.0 / iters;
}

}  // namespace

Result<std::unique_ptr<Transport>> makeNcclTransport(Bootstrap& bootstrap, const TransportOptions& options) {
  NcclSetup setup = ncclSetup(options.env);
  // NCCL reads NCCL_* only from the environment, at init: see nccl_transport.h.
  for (const auto& [key, value] : setup.nccl_env) setenv(key.c_str(), value.c_str(), 1);
  auto lib = nccl::loadNccl(setup.library_dir);
  if (!lib) return tl::unexpected(lib.error());
  auto t = std::make_unique<NcclTransport>(*lib, bootstrap, options);
  if (auto s = t->init(setup.local_rank); !s) return tl::unexpected(s.error());
  return std::unique_ptr<Transport>(std::move(t));
}

}  // namespace railkit::bench
