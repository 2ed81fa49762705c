// Ring algorithms: reduce-scatter then all-gather around rank+1 / rank-1.
// Segments are [i*count/n, (i+1)*count/n) so counts not divisible by the
// rank count need no padding. Each receive is posted in chunks and reduced
// chunk by chunk as it lands, overlapping arithmetic with the transfer.
#include <cstring>
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

// Receives `count` elements from prev into tmp chunk by chunk, reducing each
// into dst, while sending `send` to next.
Status stepReduce(const CollectiveArgs& a, const Ring& ring, const char* send, std::size_t send_bytes, char* tmp,
                  char* dst, std::size_t count) {
  Transport& t = *a.transport;
  std::size_t esize = dataTypeSize(a.type);
  std::size_t chunk_elems = std::max<std::size_t>(1, a.chunk_bytes / esize);
  std::vector<RequestId> recvs;
  for (std::size_t off = 0; off < count; off += chunk_elems) {
    auto id = t.postRecv(ring.prev, tmp + off * esize, std::min(chunk_elems, count - off) * esize);
    if (!id) return tl::unexpected(id.error());
    recvs.push_back(*id);
  }
  RequestId sid = 0;
  if (send_bytes > 0) {
    auto id = t.postSend(ring.next, send, send_bytes);
    if (!id) return tl::unexpected(id.error());
    sid = *id;
  }
  std::size_t off = 0;
  for (RequestId id : recvs) {
    if (auto s = t.wait(id); !s) return s;
    std::size_t n = std::min(chunk_elems, count - off);
    reduceInto(a.type, a.op, dst + off * esize, tmp + off * esize, n);
    off += n;
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
  std::vector<char> tmp((count / ring.n + 1) * esize);
  auto seg = [&](int i) { return std::pair{segBegin(count, ring.n, i), segBegin(count, ring.n, i + 1)}; };
  // Reduce-scatter: at step s send block rank-1-s, receive and reduce block rank-2-s.
  for (int s = 0; s < ring.n - 1; ++s) {
    auto [sb, se] = seg(ring.block(ring.rank - 1 - s));
    auto [rb, re] = seg(ring.block(ring.rank - 2 - s));
    if (auto st = stepReduce(a, ring, buf + sb * esize, (se - sb) * esize, tmp.data(), buf + rb * esize, re - rb); !st)
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
  std::vector<char> next(bytes), tmp(bytes);
  for (int s = 0; s < ring.n - 1; ++s) {
    int b = ring.block(ring.rank - 2 - s);
    char* dst = (s == ring.n - 2) ? static_cast<char*>(a.recv) : next.data();
    // dst may alias the input block b only in place, where b == rank and the input is no longer needed.
    if (dst != in + b * bytes) copyBytes(dst, in + b * bytes, bytes);
    if (auto st = stepReduce(a, ring, acc.data(), bytes, tmp.data(), dst, count); !st) return st;
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
