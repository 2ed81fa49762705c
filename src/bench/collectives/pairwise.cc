// Pairwise-exchange alltoall: in step s every rank sends its block for
// rank+s and receives the block from rank-s, so each step is a permutation
// and no link carries two flows.
//
// In place, the block received from a rank must not overwrite a block still
// to be sent, so the steps pair ranks instead: in step s, rank r swaps blocks
// with rank (s - r) mod n (a pairing: each is the other's partner, and over
// the n steps every rank meets every other once; a rank paired with itself
// keeps its own block). A swap with one partner reads and writes only that
// partner's block, staged chunk by chunk (exchangeInPlace).
#include <cstring>
#include <vector>

#include "bench/collectives/collective.h"

namespace railkit::bench {

Status pairwiseAllToAll(const CollectiveArgs& a) {
  Transport& t = *a.transport;
  int n = t.size(), r = t.rank();
  std::size_t block = a.send_count / static_cast<std::size_t>(n) * dataTypeSize(a.type);
  const char* in = static_cast<const char*>(a.send);
  char* out = static_cast<char*>(a.recv);
  if (a.send == a.recv) {
    for (int s = 0; s < n; ++s) {
      int partner = ((s - r) % n + n) % n;
      if (partner == r) continue;
      if (auto st = exchangeInPlace(t, partner, partner, out + partner * block, block, a.chunk_bytes); !st)
        return st;
    }
    return okStatus();
  }
  copyBytes(out + r * block, in + r * block, block);
  for (int s = 1; s < n; ++s) {
    int to = (r + s) % n, from = (r - s + n) % n;
    if (auto st = sendRecv(t, to, in + to * block, block, from, out + from * block, block); !st) return st;
  }
  return okStatus();
}

}  // namespace railkit::bench
