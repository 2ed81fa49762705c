#pragma once
// A collective is a small descriptor: its name, how a swept byte size turns
// into send/receive element counts, how input is seeded and output checked
// (every element's expected value is known), and the algorithm that runs it
// against a Transport. All of them live in one table (kCollectives); the
// harness never switches on the op.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "bench/datatype.h"
#include "bench/transport.h"
#include "core/collective_factors.h"

namespace railkit::bench {

// memcpy that accepts empty ranges: a zero-count buffer may be a null pointer, which
// memcpy forbids even for zero bytes.
inline void copyBytes(void* dst, const void* src, std::size_t bytes) {
  if (bytes != 0) std::memcpy(dst, src, bytes);
}

// A few chunk-sized slots, reused round-robin within one collective call:
// receives land here before they are reduced, or a chunk waits here while it
// is sent. Bounded (not the size of a segment) so the area stays in cache and
// costs no page faults.
class Slots {
 public:
  // chunk_bytes: one pipeline chunk (a whole number of elements); bytes: the most that will pass through.
  Slots(std::size_t chunk_bytes, std::size_t bytes) : chunk_(std::max<std::size_t>(1, chunk_bytes)) {
    std::size_t chunks = (bytes + chunk_ - 1) / chunk_;
    depth_ = std::clamp<std::size_t>(chunks, 1, kDepth);
    mem_.reset(new char[depth_ * chunk_]);
  }
  std::size_t depth() const { return depth_; }
  char* slot(std::size_t i) { return mem_.get() + (i % depth_) * chunk_; }

 private:
  static constexpr std::size_t kDepth = 8;
  std::size_t chunk_, depth_ = 1;
  std::unique_ptr<char[]> mem_;
};

// Receives posted ahead where units land in place (no slot to recycle).
constexpr std::size_t kReceivesAhead = 8;

// Receives a sequence of units (chunks) from one peer, keeping up to
// `depth` of them posted ahead of the one the algorithm waits for, so the
// wire never idles while it reduces or forwards. Unit u lands at place(u)
// (pointer, bytes). Call wait(u) for u = 0, 1, ... in order, and advance()
// once unit u's landing area may be reused (receive_window.cc).
class ReceiveWindow {
 public:
  using Place = std::function<std::pair<char*, std::size_t>(std::size_t unit)>;
  ReceiveWindow(Transport& t, int peer, std::size_t units, std::size_t depth, Place place);
  // Posts the first `depth` units.
  Status start();
  Status wait(std::size_t unit);
  // Posts the next unit, if any is left.
  Status advance();

 private:
  Transport& t_;
  int peer_;
  std::size_t units_, depth_, posted_ = 0;
  Place place_;
  std::vector<RequestId> ids_;
};

struct CollectiveArgs {
  Transport* transport = nullptr;
  DataType type = DataType::kFloat;
  ReduceOp op = ReduceOp::kSum;
  int root = 0;
  const void* send = nullptr;
  void* recv = nullptr;
  std::size_t send_count = 0;  // elements in the send buffer
  std::size_t recv_count = 0;  // elements in the receive buffer
  std::size_t chunk_bytes = 1 << 20;
};

struct Counts {
  std::size_t send = 0;           // elements
  std::size_t recv = 0;           // elements
  std::size_t in_place_send = 0;  // element offset of the send buffer inside the in-place buffer
  std::size_t in_place_recv = 0;  // element offset of the receive buffer inside it
};

struct Collective {
  CollectiveOp op;
  const char* name;
  bool has_root;   // prints the root; -1 otherwise
  bool has_redop;  // prints the op; "none" otherwise
  Counts (*counts)(std::size_t elements, int ranks, int rank);
  // Seeds the send buffer of `rank`.
  void (*fill)(const CollectiveArgs& a, int rank, int ranks, std::uint32_t seed);
  // Mismatching elements of the receive buffer of `rank`.
  std::size_t (*check)(const CollectiveArgs& a, int rank, int ranks, std::uint32_t seed);
  Status (*run)(const CollectiveArgs& a);
};

std::span<const Collective> collectives();
const Collective* findCollective(std::string_view name);

// Algorithms (ring.cc, chain.cc, pairwise.cc).
Status ringAllReduce(const CollectiveArgs& a);
Status ringAllGather(const CollectiveArgs& a);
Status ringReduceScatter(const CollectiveArgs& a);
Status chainBroadcast(const CollectiveArgs& a);
Status chainReduce(const CollectiveArgs& a);
Status pairwiseAllToAll(const CollectiveArgs& a);
Status ringSendRecv(const CollectiveArgs& a);

// Sends `bytes` of `buf` to `to` while receiving as many bytes from `from`
// into the same buffer (exchange.cc): chunk by chunk, each chunk is first
// copied to a staging slot, so its receive can be posted at once.
Status exchangeInPlace(Transport& t, int to, int from, char* buf, std::size_t bytes, std::size_t chunk_bytes);

// Posts `bytes` from `data` to `peer` as messages of `chunk_bytes` (the last
// may be shorter) and appends their ids. Receivers post the same chunks, so a
// backend that keeps message boundaries (ucx) never has to stage a message
// larger than the receives posted for it.
Status postSendChunks(Transport& t, int peer, const char* data, std::size_t bytes, std::size_t chunk_bytes,
                      std::vector<RequestId>& ids);

}  // namespace railkit::bench
