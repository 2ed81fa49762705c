// The one table of collectives: counts, seeding and checking per op, with
// nccl-tests' conventions (all_gather/reduce_scatter/alltoall round the
// element count down to a multiple of the rank count; in-place all_gather
// reads its input at rank*sendcount of the output buffer).
#include <cstring>

#include "bench/collectives/collective.h"

namespace railkit::bench {
namespace {

const void* sendAt(const CollectiveArgs& a) {
  return a.send;
}

Counts sameCounts(std::size_t e, int, int) {
  return {e, e, 0, 0};
}
Counts gatherCounts(std::size_t e, int n, int rank) {
  std::size_t per = e / static_cast<std::size_t>(n);
  return {per, per * n, per * static_cast<std::size_t>(rank), 0};
}
Counts scatterCounts(std::size_t e, int n, int rank) {
  std::size_t per = e / static_cast<std::size_t>(n);
  return {per * n, per, 0, per * static_cast<std::size_t>(rank)};
}
Counts alltoallCounts(std::size_t e, int n, int) {
  std::size_t all = e / static_cast<std::size_t>(n) * n;
  return {all, all, 0, 0};
}

void fillOwn(const CollectiveArgs& a, int rank, int, std::uint32_t seed) {
  fillSeeded(a.type, a.op, const_cast<void*>(sendAt(a)), a.send_count, rank, 0, seed);
}
void fillRoot(const CollectiveArgs& a, int rank, int, std::uint32_t seed) {
  // Non-root ranks get distinct data so a broadcast that moved nothing is caught.
  fillSeeded(a.type, a.op, const_cast<void*>(sendAt(a)), a.send_count, rank == a.root ? a.root : rank + 1000,
             0, seed);
}

std::size_t checkAllReduce(const CollectiveArgs& a, int, int n, std::uint32_t seed) {
  return countWrong(a.type, a.recv, a.recv_count,
                    [&](std::size_t i) { return reducedValue(a.op, n, i, seed); });
}
std::size_t checkAllGather(const CollectiveArgs& a, int, int n, std::uint32_t seed) {
  std::size_t per = a.recv_count / static_cast<std::size_t>(n);
  return countWrong(a.type, a.recv, a.recv_count, [&](std::size_t i) {
    return seededValue(a.op, static_cast<int>(i / per), i % per, seed);
  });
}
std::size_t checkReduceScatter(const CollectiveArgs& a, int rank, int n, std::uint32_t seed) {
  std::size_t base = a.recv_count * static_cast<std::size_t>(rank);
  return countWrong(a.type, a.recv, a.recv_count,
                    [&](std::size_t i) { return reducedValue(a.op, n, base + i, seed); });
}
std::size_t checkBroadcast(const CollectiveArgs& a, int, int, std::uint32_t seed) {
  return countWrong(a.type, a.recv, a.recv_count,
                    [&](std::size_t i) { return seededValue(a.op, a.root, i, seed); });
}
std::size_t checkReduce(const CollectiveArgs& a, int rank, int n, std::uint32_t seed) {
  if (rank != a.root) return 0;
  return checkAllReduce(a, rank, n, seed);
}
std::size_t checkAllToAll(const CollectiveArgs& a, int rank, int n, std::uint32_t seed) {
  std::size_t per = a.recv_count / static_cast<std::size_t>(n);
  return countWrong(a.type, a.recv, a.recv_count, [&](std::size_t i) {
    return seededValue(a.op, static_cast<int>(i / per), per * static_cast<std::size_t>(rank) + i % per, seed);
  });
}
std::size_t checkSendRecv(const CollectiveArgs& a, int rank, int n, std::uint32_t seed) {
  int from = (rank - 1 + n) % n;
  return countWrong(a.type, a.recv, a.recv_count,
                    [&](std::size_t i) { return seededValue(a.op, from, i, seed); });
}

const Collective kCollectives[] = {
    {CollectiveOp::kAllReduce, "all_reduce", false, true, sameCounts, fillOwn, checkAllReduce, ringAllReduce},
    {CollectiveOp::kAllGather, "all_gather", false, false, gatherCounts, fillOwn, checkAllGather,
     ringAllGather},
    {CollectiveOp::kReduceScatter, "reduce_scatter", false, true, scatterCounts, fillOwn, checkReduceScatter,
     ringReduceScatter},
    {CollectiveOp::kBroadcast, "broadcast", true, false, sameCounts, fillRoot, checkBroadcast,
     chainBroadcast},
    {CollectiveOp::kReduce, "reduce", true, true, sameCounts, fillOwn, checkReduce, chainReduce},
    {CollectiveOp::kAllToAll, "alltoall", false, false, alltoallCounts, fillOwn, checkAllToAll,
     pairwiseAllToAll},
    {CollectiveOp::kSendRecv, "sendrecv", false, false, sameCounts, fillOwn, checkSendRecv, ringSendRecv},
};

}  // namespace

std::span<const Collective> collectives() {
  return kCollectives;
}

const Collective* findCollective(std::string_view name) {
  for (const auto& c : kCollectives) {
    if (name == c.name) return &c;
  }
  return nullptr;
}

}  // namespace railkit::bench
