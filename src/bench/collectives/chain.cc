// Pipelined chains rooted at -r: broadcast flows root -> root+1 -> ...,
// reduce flows the other way and ends at the root. Messages move in chunks so
// every link of the chain is busy at once.
#include <cstring>
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
  if (n == 1) return okStatus();
  std::vector<RequestId> sends;
  for (std::size_t off = 0; off < bytes; off += a.chunk_bytes) {
    std::size_t len = std::min(a.chunk_bytes, bytes - off);
    if (pos != 0) {
      auto id = t.postRecv(prev, buf + off, len);
      if (!id) return tl::unexpected(id.error());
      if (auto s = t.wait(*id); !s) return s;
    }
    if (pos != n - 1) {
      auto id = t.postSend(next, buf + off, len);
      if (!id) return tl::unexpected(id.error());
      sends.push_back(*id);
    }
  }
  return t.waitAll(sends);
}

Status chainReduce(const CollectiveArgs& a) {
  Transport& t = *a.transport;
  int n = t.size();
  int pos = (t.rank() - a.root + n) % n;
  int from = (t.rank() + 1) % n, to = (t.rank() - 1 + n) % n;  // data flows towards the root
  std::size_t esize = dataTypeSize(a.type);
  std::size_t bytes = a.recv_count * esize;
  // Non-root ranks use a private accumulator so their receive buffer is untouched.
  std::vector<char> own;
  char* acc = static_cast<char*>(a.recv);
  if (pos != 0) {
    own.resize(bytes);
    acc = own.data();
  }
  if (acc != a.send) copyBytes(acc, a.send, bytes);
  if (n == 1) return okStatus();
  std::size_t chunk = std::max<std::size_t>(esize, a.chunk_bytes / esize * esize);
  std::vector<char> tmp(std::min(bytes, chunk));
  std::vector<RequestId> sends;
  for (std::size_t off = 0; off < bytes; off += chunk) {
    std::size_t len = std::min(chunk, bytes - off);
    if (pos != n - 1) {
      auto id = t.postRecv(from, tmp.data(), len);
      if (!id) return tl::unexpected(id.error());
      if (auto s = t.wait(*id); !s) return s;
      reduceInto(a.type, a.op, acc + off, tmp.data(), len / esize);
    }
    if (pos != 0) {
      auto id = t.postSend(to, acc + off, len);
      if (!id) return tl::unexpected(id.error());
      sends.push_back(*id);
    }
  }
  return t.waitAll(sends);
}

}  // namespace railkit::bench
