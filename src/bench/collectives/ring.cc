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

Status ringAllReduce(const CollectiveArgs& a) {
  Transport& t = *a.transport;
  std::size_t esize = dataTypeSize(a.type);
  char* buf = static_cast<char*>(a.recv);
  if (a.send != a.recv) copyBytes(buf, a.send, a.recv_count * esize);
  Ring ring(t);
  if (ring.n == 1) return okStatus();
  std::size_t count = a.recv_count;
  Slots slots(std::max<std::size_t>(esize, a.chunk_bytes / esize * esize), (count / ring.n + 1) * esize);
  auto seg = [&](int i) { return std::pair{segBegin(count, ring.n, i), segBegin(count, ring.n, i + 1)}; };
  // Reduce-scatter: at step s send block rank-1-s, receive and reduce block rank-2-s.
  for (int s = 0; s < ring.n - 1; ++s) {
    auto [sb, se] = seg(ring.block(ring.rank - 1 - s));
    auto [rb, re] = seg(ring.block(ring.rank - 2 - s));
    if (auto st = stepReduce(a, ring, buf + sb * esize, (se - sb) * esize, slots, buf + rb * esize, re - rb); !st)
      return st;
  }
  // All-gather: rank r now owns block r; pass completed blocks around.
  for (int s = 0; s < ring.n - 1; ++s) {
    auto [sb, se] = seg(ring.block(ring.rank - s));
    auto [rb, re] = seg(ring.block(ring.rank - s - 1));
    if (auto st = sendRecv(t, ring.next, buf + sb * esize, (se - sb) * esize, ring.prev, buf + rb * esize,
                           (re - rb) * esize);
        !st)
      return st;
  }
  return okStatus();
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
