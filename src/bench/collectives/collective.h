#pragma once
// A collective is a small descriptor: its name, how a swept byte size turns
// into send/receive element counts, how input is seeded and output checked
// (every element's expected value is known), and the algorithm that runs it
// against a Transport. All of them live in one table (kCollectives); the
// harness never switches on the op.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>

#include "bench/datatype.h"
#include "bench/transport.h"
#include "core/collective_factors.h"

namespace railkit::bench {

// memcpy that accepts empty ranges: a zero-count buffer may be a null pointer, which
// memcpy forbids even for zero bytes.
inline void copyBytes(void* dst, const void* src, std::size_t bytes) {
  if (bytes != 0) std::memcpy(dst, src, bytes);
}

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

}  // namespace railkit::bench
