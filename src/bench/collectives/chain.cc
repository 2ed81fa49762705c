// Pipelined chains rooted at -r: broadcast flows root -> root+1 -> ...,
// reduce flows the other way and ends at the root. Messages move in chunks,
// several receives are posted ahead, and a chunk is passed on as soon as it
// has landed, so every link of the chain is busy at once.
#include <cstring>
#include <memory>
#include <vector>

#include "bench/collectives/collective.h"

namespace railkit::bench {

Status chainBroadcast(const CollectiveArgs& a) {
  Transport& t = *a.transport;
  int n = t.size();
  int pos = (t.rank() - a.root + n) % n;
  int prev = (t.rank() - 1 + n) % n, next = (t.rank() + 1) % n;
  std::size_t bytes = a.recv_count * dataTypeSize(a.type);
  char* buf = static_cast<char*>(a.recv);
  if (pos == 0 && a.send != a.recv) copyBytes(buf, a.send, bytes);
  if (n == 1 || bytes == 0) return okStatus();
  std::size_t chunk = std::max<std::size_t>(1, a.chunk_bytes);
  if (pos == 0) {  // the root has everything: every chunk goes out at once
    std::vector<RequestId> sends;
    if (auto s = postSendChunks(t, next, buf, bytes, chunk, sends); !s) return s;
    return t.waitAll(sends);
  }
  std::size_t chunks = (bytes + chunk - 1) / chunk;
  std::vector<RequestId> sends;
  ReceiveWindow window(t, prev, chunks, kReceivesAhead, [&](std::size_t k) {
    return std::pair{buf + k * chunk, std::min(chunk, bytes - k * chunk)};
  });
  if (auto s = window.start(); !s) return s;
  for (std::size_t k = 0; k < chunks; ++k) {
    if (auto s = window.wait(k); !s) return s;
    if (auto s = window.advance(); !s) return s;
    if (pos != n - 1) {
      std::size_t off = k * chunk;
      auto id = t.postSend(next, buf + off, std::min(chunk, bytes - off));
      if (!id) return tl::unexpected(id.error());
      sends.push_back(*id);
    }
  }
  return t.waitAll(sends);
}

// The last rank of the chain sends its input as is; every other rank adds
// its input to each chunk as it lands (reading the input in place, no copy)
// and sends the sum on, and the root writes it to its receive buffer. Sums in
// flight wait in a few slots; a slot is reused once its send is done, which
// depends only on ranks nearer the root, so the chain cannot deadlock.
// Non-root receive buffers are not touched.
Status chainReduce(const CollectiveArgs& a) {
  Transport& t = *a.transport;
  int n = t.size();
  int pos = (t.rank() - a.root + n) % n;
  int from = (t.rank() + 1) % n, to = (t.rank() - 1 + n) % n;  // data flows towards the root
  std::size_t esize = dataTypeSize(a.type);
  std::size_t count = a.recv_count;
  const char* in = static_cast<const char*>(a.send);
  if (n == 1) {
    if (a.recv != a.send) copyBytes(a.recv, a.send, count * esize);
    return okStatus();
  }
  if (count == 0) return okStatus();
  std::size_t chunk_elems = std::max<std::size_t>(1, a.chunk_bytes / esize);
  if (pos == n - 1) {
    std::vector<RequestId> sends;
    if (auto s = postSendChunks(t, to, in, count * esize, chunk_elems * esize, sends); !s) return s;
    return t.waitAll(sends);
  }
  std::size_t chunks = (count + chunk_elems - 1) / chunk_elems;
  Slots landing(chunk_elems * esize, count * esize);
  std::unique_ptr<Slots> outgoing;
  if (pos != 0) outgoing = std::make_unique<Slots>(chunk_elems * esize, count * esize);
  std::vector<RequestId> sends(chunks, 0);
  ReceiveWindow window(t, from, chunks, landing.depth(), [&](std::size_t k) {
    return std::pair{landing.slot(k), std::min(chunk_elems, count - k * chunk_elems) * esize};
  });
  if (auto s = window.start(); !s) return s;
  for (std::size_t k = 0; k < chunks; ++k) {
    if (auto s = window.wait(k); !s) return s;
    std::size_t first = k * chunk_elems, len = std::min(chunk_elems, count - first);
    if (pos == 0) {
      reduce(a.type, a.op, static_cast<char*>(a.recv) + first * esize, in + first * esize, landing.slot(k),
             len);
    } else {
      if (k >= outgoing->depth()) {
        if (auto s = t.wait(sends[k - outgoing->depth()]); !s) return s;
      }
      reduce(a.type, a.op, outgoing->slot(k), in + first * esize, landing.slot(k), len);
      auto id = t.postSend(to, outgoing->slot(k), len * esize);
      if (!id) return tl::unexpected(id.error());
      sends[k] = *id;
    }
    if (auto s = window.advance(); !s) return s;  // landing slot k is free again
  }
  if (pos == 0) return okStatus();
  return t.waitAll(std::vector<RequestId>(
      sends.begin() + static_cast<std::ptrdiff_t>(chunks - std::min(chunks, outgoing->depth())),
      sends.end()));
}

}  // namespace railkit::bench
