#pragma once
// nccl-tests' bandwidth definitions, shared by `logs` (grading a table) and
// `bench` (printing one). busbw = algbw * busFactor(op, ranks): the factor
// turns the algorithm bandwidth into what each link must carry, so a number
// can be compared with the hardware whatever the rank count.

#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"

namespace railkit {

enum class CollectiveOp { kAllReduce, kAllGather, kReduceScatter, kBroadcast, kReduce, kAllToAll, kSendRecv };

std::optional<CollectiveOp> collectiveFromName(std::string_view name);  // "all_reduce", "alltoall", ...
const char* collectiveName(CollectiveOp op);

// all_reduce 2(n-1)/n; all_gather, reduce_scatter, alltoall (n-1)/n; others 1.
double busFactor(CollectiveOp op, int ranks);

// The NIC-bound expectation: n ranks on `nodes` nodes whose per-node NICs add
// up to `node_nic_gbps` Gb/s. The NICs carry the op's factor for the node
// count while busbw is normalised by the factor for the rank count:
//   F * (R / 8) * busFactor(op, n) / busFactor(op, N)   [GB/s]
// nullopt for a single node (no NIC on the path) or a zero factor.
std::optional<double> expectedBusbwFromLineRate(CollectiveOp op, int ranks, int nodes, double node_nic_gbps,
                                                double fraction);

// F of --expect-line-rate[=F] (bench and logs alike): "" is the default 0.8;
// otherwise a number in (0, 1]. kUsage names the flag and what was given.
inline constexpr double kDefaultLineRateFraction = 0.8;
Result<double> parseLineRateFraction(const std::string& text);

}  // namespace railkit
