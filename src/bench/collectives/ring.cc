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
      : rank(t.rank()),
        n(t.size()),
        next((t.rank() + 1) % t.size()),
        prev((t.rank() - 1 + t.size()) % t.size()) {}
  int block(int k) const { return ((k % n) + n) % n; }
};

std::size_t segBegin(std::size_t count, int n, int i) {
  return count * static_cast<std::size_t>(i) / static_cast<std::size_t>(n);
}

}  // namespace

// Up to this size a 2-rank all_reduce is one exchange instead of two ring
// steps: latency, not bandwidth, is what counts there, and the ring's two
// dependent messages cost two one-way latencies where this costs one.
constexpr std::size_t kExchangeBytes = 64 << 10;

// 2 ranks, small buffer: each sends its whole input and adds the peer's.
// Both ranks compute in + peer with the operands swapped, which for the
// commutative ops (sum prod min max) gives bit-identical results.
static Status exchangeAllReduce(const CollectiveArgs& a, int peer) {
  Transport& t = *a.transport;
  std::size_t bytes = a.recv_count * dataTypeSize(a.type);
  std::vector<char> theirs(bytes);
  auto r = t.postRecv(peer, theirs.data(), bytes);
  if (!r) return tl::unexpected(r.error());
  auto s = t.postSend(peer, a.send, bytes);
  if (!s) return tl::unexpected(s.error());
  // In place the send reads the buffer the result goes to: it must be done first.
  if (auto w = t.waitAll({*r, *s}); !w) return w;
  reduce(a.type, a.op, a.recv, a.send, theirs.data(), a.recv_count);
  return okStatus();
}

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
  if (ring.n == 2 && count * esize <= kExchangeBytes) return exchangeAllReduce(a, ring.next);
  const int n = ring.n, steps = 2 * (n - 1);
  auto sendBlock = [&](int s) {
    return s < n - 1 ? ring.block(ring.rank - 1 - s) : ring.block(ring.rank - (s - n + 1));
  };
  auto recvBlock = [&](int s) {
    return s < n - 1 ? ring.block(ring.rank - 2 - s) : ring.block(ring.rank - (s - n + 1) - 1);
  };
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
  std::vector<RequestId> sends;
  ReceiveWindow window(t, ring.prev, units.size(), slots.depth(), [&](std::size_t u) {
    auto [first, len] = chunk(recvBlock(units[u].step), units[u].k);
    return std::pair{units[u].step < n - 1 ? slots.slot(u) : buf + first * esize, len * esize};
  });
  if (auto s = window.start(); !s) return s;
  {
    int b = sendBlock(0);
    std::size_t first = segBegin(count, n, b), len = segBegin(count, n, b + 1) - first;
    if (auto s = postSendChunks(t, ring.next, in + first * esize, len * esize, chunk_elems * esize, sends);
        !s)
      return s;
  }
  for (std::size_t u = 0; u < units.size(); ++u) {
    if (auto s = window.wait(u); !s) return s;
    auto [step, k] = units[u];
    auto [first, len] = chunk(recvBlock(step), k);
    if (step < n - 1) reduce(a.type, a.op, buf + first * esize, in + first * esize, slots.slot(u), len);
    if (step + 1 < steps) {  // the next step sends this very chunk on
      auto id = t.postSend(ring.next, buf + first * esize, len * esize);
      if (!id) return tl::unexpected(id.error());
      sends.push_back(*id);
    }
    // Slot u is free again: the unit depth() ahead lands in it.
    if (auto s = window.advance(); !s) return s;
  }
  return t.waitAll(sends);
}

// All-gather as one pipeline of n-1 ring steps: step s receives block
// rank-s-1 straight into its place and sends it on in step s+1 chunk by chunk
// as it lands, so no step waits for the previous one to drain.
Status ringAllGather(const CollectiveArgs& a) {
  Transport& t = *a.transport;
  Ring ring(t);
  std::size_t bytes = a.send_count * dataTypeSize(a.type);
  char* out = static_cast<char*>(a.recv);
  if (out + ring.rank * bytes != a.send) copyBytes(out + ring.rank * bytes, a.send, bytes);
  if (ring.n == 1 || bytes == 0) return okStatus();
  std::size_t chunk = std::max<std::size_t>(1, a.chunk_bytes);
  std::size_t chunks = (bytes + chunk - 1) / chunk;
  std::size_t units = static_cast<std::size_t>(ring.n - 1) * chunks;  // receives, in stream order
  auto place = [&](std::size_t u) {
    int step = static_cast<int>(u / chunks);
    std::size_t off = (u % chunks) * chunk;
    return std::pair{out + ring.block(ring.rank - step - 1) * bytes + off, std::min(chunk, bytes - off)};
  };
  std::vector<RequestId> sends;
  ReceiveWindow window(t, ring.prev, units, kReceivesAhead, place);
  if (auto s = window.start(); !s) return s;
  if (auto s = postSendChunks(t, ring.next, out + ring.rank * bytes, bytes, chunk, sends); !s) return s;
  for (std::size_t u = 0; u < units; ++u) {
    if (auto s = window.wait(u); !s) return s;
    if (u / chunks + 1 < static_cast<std::size_t>(ring.n - 1)) {  // the next step forwards this chunk
      auto [src, len] = place(u);
      auto id = t.postSend(ring.next, src, len);
      if (!id) return tl::unexpected(id.error());
      sends.push_back(*id);
    }
    if (auto s = window.advance(); !s) return s;
  }
  return t.waitAll(sends);
}

// Reduce-scatter as one pipeline of n-1 ring steps: step s receives the
// partial sum of block rank-2-s chunk by chunk, adds this rank's input and
// sends the chunk on at once; the last step (block rank) writes the result.
// Partial sums wait in two block-sized buffers used alternately: a chunk is
// overwritten two steps later, after waiting for its send (by then normally
// done). Reusing a few chunk slots instead could make a rank wait for a send
// whose receiver waits, around the ring, on this rank. With 2 ranks there is
// no partial sum to keep and no buffer.
Status ringReduceScatter(const CollectiveArgs& a) {
  Transport& t = *a.transport;
  Ring ring(t);
  std::size_t esize = dataTypeSize(a.type);
  std::size_t count = a.recv_count;
  std::size_t bytes = count * esize;
  const char* in = static_cast<const char*>(a.send);
  char* out = static_cast<char*>(a.recv);
  if (ring.n == 1) {
    if (a.recv != a.send) copyBytes(a.recv, a.send, bytes);
    return okStatus();
  }
  if (count == 0) return okStatus();
  const int n = ring.n;
  std::size_t chunk_elems = std::max<std::size_t>(1, a.chunk_bytes / esize);
  std::size_t chunks = (count + chunk_elems - 1) / chunk_elems;
  std::size_t units = static_cast<std::size_t>(n - 1) * chunks;
  std::unique_ptr<char[]> partial(n > 2 ? new char[std::min(n - 2, 2) * bytes] : nullptr);
  Slots landing(chunk_elems * esize, bytes * static_cast<std::size_t>(n - 1));
  std::vector<RequestId> forwards(units, 0), sends;
  ReceiveWindow window(t, ring.prev, units, landing.depth(), [&](std::size_t u) {
    std::size_t first = (u % chunks) * chunk_elems;
    return std::pair{landing.slot(u), std::min(chunk_elems, count - first) * esize};
  });
  if (auto s = window.start(); !s) return s;
  if (auto s = postSendChunks(t, ring.next, in + ring.block(ring.rank - 1) * bytes, bytes,
                              chunk_elems * esize, sends);
      !s)
    return s;
  for (std::size_t u = 0; u < units; ++u) {
    if (auto s = window.wait(u); !s) return s;
    int step = static_cast<int>(u / chunks);
    std::size_t first = (u % chunks) * chunk_elems, len = std::min(chunk_elems, count - first);
    const char* mine = in + (ring.block(ring.rank - 2 - step) * count + first) * esize;
    if (step == n - 2) {
      // Block rank: in place the output is this very input block (dst may alias it).
      reduce(a.type, a.op, out + first * esize, mine, landing.slot(u), len);
    } else {
      char* dst = partial.get() + (step % 2) * bytes + first * esize;
      if (step >= 2) {
        if (auto s = t.wait(forwards[u - 2 * chunks]); !s) return s;
      }
      reduce(a.type, a.op, dst, mine, landing.slot(u), len);
      auto id = t.postSend(ring.next, dst, len * esize);
      if (!id) return tl::unexpected(id.error());
      forwards[u] = *id;
    }
    // Landing slot u is free again: the unit depth() ahead lands in it.
    if (auto s = window.advance(); !s) return s;
  }
  for (RequestId id : forwards) {
    if (id != 0) sends.push_back(id);
  }
  return t.waitAll(sends);
}

// Ring shift: every rank sends to rank+1 and receives from rank-1.
Status ringSendRecv(const CollectiveArgs& a) {
  Ring ring(*a.transport);
  std::size_t bytes = a.send_count * dataTypeSize(a.type);
  if (a.send == a.recv) {
    return exchangeInPlace(*a.transport, ring.next, ring.prev, static_cast<char*>(a.recv), bytes,
                           a.chunk_bytes);
  }
  return sendRecv(*a.transport, ring.next, a.send, bytes, ring.prev, a.recv, bytes);
}

}  // namespace railkit::bench
