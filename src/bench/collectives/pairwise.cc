// Pairwise-exchange alltoall: in step s every rank sends its block for
// rank+s and receives the block from rank-s, so each step is a permutation
// and no link carries two flows.
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
  std::vector<char> copy;
  if (a.send == a.recv) {  // in place: later steps still need blocks we overwrite
    copy.assign(in, in + block * n);
    in = copy.data();
  }
  copyBytes(out + r * block, in + r * block, block);
  for (int s = 1; s < n; ++s) {
    int to = (r + s) % n, from = (r - s + n) % n;
    if (auto st = sendRecv(t, to, in + to * block, block, from, out + from * block, block); !st) return st;
  }
  return okStatus();
}

}  // namespace railkit::bench
