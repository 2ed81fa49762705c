// Ring algorithms: reduce-scatter then all-gather around rank+1 / rank-1.
// Segments are [i*count/n, (i+1)*count/n) so counts not divisible by the
// rank count need no padding. Each receive is posted in chunks and reduced
// chunk by chunk as it lands, overlapping arithmetic with the transfer.
#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "bench/collectives/collective.h"

namespace railkit::bench {
namespace {

struct Ring {
  int rank, n, next, prev;
  explicit Ring(const Transport& t)
      : rank(t.rank()), n(t.size()), next((t.rank() + 1) % t.size()), prev((t.rank() - 1 + t.size()) % t.size()) {}
  int block(int k) const { return ((k % n) + n) % n; }
};

std::size_t segBegin(std::size_t count, int n, int i) { return count * static_cast<std::size_t>(i) / static_cast<std::size_t>(n); }

// A few chunk-sized landing slots, reused across steps and runs of one
// collective call: receives land here and are reduced into place while the
// next chunks are already on the wire. Bounded (not the size of a segment)
// so the landing area stays in cache and costs no page faults.
class Slots {
 public:
  // chunk_bytes: one pipeline chunk (a whole number of elements); bytes: the largest segment.
  Slots(std::size_t chunk_bytes, std::size_t bytes) : chunk_(chunk_bytes) {
    std::size_t chunks = (bytes + chunk_bytes - 1) / chunk_bytes;
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

// Receives `count` elements from prev chunk by chunk into the slots,
// reducing each into dst as it lands, while sending `send` to next.
Status stepReduce(const CollectiveArgs& a, const Ring& ring, const char* send, std::size_t send_bytes, Slots& slots,
                  char* dst, std::size_t count) {
  Transport& t = *a.transport;
  std::size_t esize = dataTypeSize(a.type);
  std::size_t chunk_elems = std::max<std::size_t>(1, a.chunk_bytes / esize);
  std::size_t chunks = (count + chunk_elems - 1) / chunk_elems;
  std::vector<RequestId> recvs(chunks, 0);
  auto postChunk = [&](std::size_t k) -> Status {
    std::size_t off = k * chunk_elems;
    auto id = t.postRecv(ring.prev, slots.slot(k), std::min(chunk_elems, count - off) * esize);
    if (!id) return tl::unexpected(id.error());
    recvs[k] = *id;
    return okStatus();
  };
  std::size_t posted = 0;
  for (; posted < std::min(chunks, slots.depth()); ++posted) {
    if (auto s = postChunk(posted); !s) return s;
  }
  RequestId sid = 0;
  if (send_bytes > 0) {
    auto id = t.postSend(ring.next, send, send_bytes);
    if (!id) return tl::unexpected(id.error());
    sid = *id;
  }
  for (std::size_t k = 0; k < chunks; ++k) {
    if (auto s = t.wait(recvs[k]); !s) return s;
    std::size_t off = k * chunk_elems;
    reduceInto(a.type, a.op, dst + off * esize, slots.slot(k), std::min(chunk_elems, count - off));
    // The slot is free again: the chunk depth() ahead lands in it.
    if (posted < chunks) {
      if (auto s = postChunk(posted); !s) return s;
      ++posted;
    }
  }
  if (sid) return t.wait(sid);
  return okStatus();
}

}  // namespace

// All-reduce as one pipeline of 2(n-1) ring steps: reduce-scatter steps
// s < n-1 send block rank-1-s and receive block rank-2-s, all-gather steps
// send block rank-t and receive block rank-t-1 (t = s-(n-1)). The block a
// step sends is the block the step before received, so chunk k of step s is
// posted as soon as chunk k of step s-1 has landed (and, in reduce-scatter,
// been reduced): no step waits for the previous one to drain, both
// directions stay busy across the reduce-scatter/all-gather boundary, and a
// reduced chunk goes out while it is still in cache. Reductions read the
// local contribution straight from the send buffer (every block is reduced
// exactly once), so out of place needs no initial copy.
//
// An all-gather receive overwrites a block this rank sent in reduce-scatter.
// That send cannot still be reading it: the final values of that chunk
// depend on the partial sums it carried, so they arrive only after the
// neighbour received every byte of it.
Status ringAllReduce(const CollectiveArgs& a) {
  Transport& t = *a.transport;
  std::size_t esize = dataTypeSize(a.type);
  const char* in = static_cast<const char*>(a.send);
  char* buf = static_cast<char*>(a.recv);
  std::size_t count = a.recv_count;
  Ring ring(t);
  if (ring.n == 1) {
    if (in != buf) copyBytes(buf, in, count * esize);
    return okStatus();
  }
  const int n = ring.n, steps = 2 * (n - 1);
  auto sendBlock = [&](int s) { return s < n - 1 ? ring.block(ring.rank - 1 - s) : ring.block(ring.rank - (s - n + 1)); };
  auto recvBlock = [&](int s) { return s < n - 1 ? ring.block(ring.rank - 2 - s) : ring.block(ring.rank - (s - n + 1) - 1); };
  std::size_t chunk_elems = std::max<std::size_t>(1, a.chunk_bytes / esize);
  auto chunks = [&](int b) {
    std::size_t len = segBegin(count, n, b + 1) - segBegin(count, n, b);
    return (len + chunk_elems - 1) / chunk_elems;
  };
  // Element range [first, first + len) of chunk k of block b.
  auto chunk = [&](int b, std::size_t k) {
    std::size_t first = segBegin(count, n, b) + k * chunk_elems;
    return std::pair{first, std::min(chunk_elems, segBegin(count, n, b + 1) - first)};
  };
  struct Unit {
    int step;
    std::size_t k;
  };
  std::vector<Unit> units;  // every receive, in stream order
  for (int s = 0; s < steps; ++s) {
    for (std::size_t k = 0; k < chunks(recvBlock(s)); ++k) units.push_back({s, k});
  }
  Slots slots(chunk_elems * esize, (count / n + 1) * esize);
  std::vector<RequestId> recvs(units.size(), 0), sends;
  auto postRecv = [&](std::size_t u) -> Status {
    auto [first, len] = chunk(recvBlock(units[u].step), units[u].k);
    char* dst = units[u].step < n - 1 ? slots.slot(u) : buf + first * esize;
    auto id = t.postRecv(ring.prev, dst, len * esize);
    if (!id) return tl::unexpected(id.error());
    recvs[u] = *id;
    return okStatus();
  };
  std::size_t posted = 0;
  for (; posted < std::min(units.size(), slots.depth()); ++posted) {
    if (auto s = postRecv(posted); !s) return s;
  }
  {
    int b = sendBlock(0);
    std::size_t first = segBegin(count, n, b), len = segBegin(count, n, b + 1) - first;
    if (len > 0) {
      auto id = t.postSend(ring.next, in + first * esize, len * esize);
      if (!id) return tl::unexpected(id.error());
      sends.push_back(*id);
    }
  }
  for (std::size_t u = 0; u < units.size(); ++u) {
    if (auto s = t.wait(recvs[u]); !s) return s;
    auto [step, k] = units[u];
    auto [first, len] = chunk(recvBlock(step), k);
    if (step < n - 1) reduce(a.type, a.op, buf + first * esize, in + first * esize, slots.slot(u), len);
    if (step + 1 < steps) {  // the next step sends this very chunk on
      auto id = t.postSend(ring.next, buf + first * esize, len * esize);
      if (!id) return tl::unexpected(id.error());
      sends.push_back(*id);
    }
    // Slot u is free again: the unit depth() ahead lands in it.
    if (posted < units.size()) {
      if (auto s = postRecv(posted); !s) return s;
      ++posted;
    }
  }
  return t.waitAll(sends);
}

Status ringAllGather(const CollectiveArgs& a) {
  Transport& t = *a.transport;
  Ring ring(t);
  std::size_t bytes = a.send_count * dataTypeSize(a.type);
  char* out = static_cast<char*>(a.recv);
  if (out + ring.rank * bytes != a.send) copyBytes(out + ring.rank * bytes, a.send, bytes);
  for (int s = 0; s < ring.n - 1; ++s) {
    if (auto st = sendRecv(t, ring.next, out + ring.block(ring.rank - s) * bytes, bytes, ring.prev,
                           out + ring.block(ring.rank - s - 1) * bytes, bytes);
        !st)
      return st;
  }
  return okStatus();
}

Status ringReduceScatter(const CollectiveArgs& a) {
  Ring ring(*a.transport);
  std::size_t esize = dataTypeSize(a.type);
  std::size_t count = a.recv_count;
  std::size_t bytes = count * esize;
  const char* in = static_cast<const char*>(a.send);
  if (ring.n == 1) {
    if (a.recv != a.send) copyBytes(a.recv, a.send, bytes);
    return okStatus();
  }
  // Double buffer: `acc` holds the partial sum sent next step, `tmp` receives.
  std::vector<char> acc(in + ring.block(ring.rank - 1) * bytes, in + ring.block(ring.rank - 1) * bytes + bytes);
  std::vector<char> next(bytes);
  Slots slots(std::max<std::size_t>(esize, a.chunk_bytes / esize * esize), bytes);
  for (int s = 0; s < ring.n - 1; ++s) {
    int b = ring.block(ring.rank - 2 - s);
    char* dst = (s == ring.n - 2) ? static_cast<char*>(a.recv) : next.data();
    // dst may alias the input block b only in place, where b == rank and the input is no longer needed.
    if (dst != in + b * bytes) copyBytes(dst, in + b * bytes, bytes);
    if (auto st = stepReduce(a, ring, acc.data(), bytes, slots, dst, count); !st) return st;
    if (s != ring.n - 2) acc.swap(next);
  }
  return okStatus();
}

Status ringSendRecv(const CollectiveArgs& a) {
  Ring ring(*a.transport);
  std::size_t bytes = a.send_count * dataTypeSize(a.type);
  std::vector<char> copy;
  const void* src = a.send;
  if (a.send == a.recv) {
    copy.assign(static_cast<const char*>(a.send), static_cast<const char*>(a.send) + bytes);
    src = copy.data();
  }
  return sendRecv(*a.transport, ring.next, src, bytes, ring.prev, a.recv, bytes);
}

}  // namespace railkit::bench
