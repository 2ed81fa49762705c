// In-place exchange (sendrecv and alltoall with one buffer). Copying the
// whole buffer aside first would cost a fresh allocation and its page faults
// on every call; a few staging slots cost one cache-warm copy per chunk.
#include <vector>

#include "bench/collectives/collective.h"

namespace railkit::bench {

Status exchangeInPlace(Transport& t, int to, int from, char* buf, std::size_t bytes,
                       std::size_t chunk_bytes) {
  if (bytes == 0) return okStatus();
  std::size_t chunk = std::max<std::size_t>(1, chunk_bytes);
  std::size_t chunks = (bytes + chunk - 1) / chunk;
  Slots slots(chunk, bytes);
  std::vector<RequestId> sends(chunks, 0), recvs(chunks, 0);
  for (std::size_t k = 0; k < chunks; ++k) {
    // The slot of chunk k still holds chunk k - depth until that send is done.
    if (k >= slots.depth()) {
      if (auto s = t.wait(sends[k - slots.depth()]); !s) return s;
    }
    std::size_t off = k * chunk, len = std::min(chunk, bytes - off);
    std::memcpy(slots.slot(k), buf + off, len);
    auto sid = t.postSend(to, slots.slot(k), len);
    if (!sid) return tl::unexpected(sid.error());
    sends[k] = *sid;
    auto rid = t.postRecv(from, buf + off, len);
    if (!rid) return tl::unexpected(rid.error());
    recvs[k] = *rid;
  }
  std::vector<RequestId> left(recvs);
  left.insert(left.end(),
              sends.begin() + static_cast<std::ptrdiff_t>(chunks - std::min(chunks, slots.depth())),
              sends.end());
  return t.waitAll(left);
}

Status postSendChunks(Transport& t, int peer, const char* data, std::size_t bytes, std::size_t chunk_bytes,
                      std::vector<RequestId>& ids) {
  std::size_t chunk = std::max<std::size_t>(1, chunk_bytes);
  for (std::size_t off = 0; off < bytes; off += chunk) {
    auto id = t.postSend(peer, data + off, std::min(chunk, bytes - off));
    if (!id) return tl::unexpected(id.error());
    ids.push_back(*id);
  }
  return okStatus();
}

}  // namespace railkit::bench
