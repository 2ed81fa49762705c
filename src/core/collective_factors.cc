#include "core/collective_factors.h"

#include "core/strings.h"

namespace railkit {

std::optional<CollectiveOp> collectiveFromName(std::string_view name) {
  struct Entry {
    std::string_view name;
    CollectiveOp op;
  };
  static constexpr Entry kNames[] = {
      {"all_reduce", CollectiveOp::kAllReduce},
      {"allreduce", CollectiveOp::kAllReduce},
      {"all_gather", CollectiveOp::kAllGather},
      {"allgather", CollectiveOp::kAllGather},
      {"reduce_scatter", CollectiveOp::kReduceScatter},
      {"reducescatter", CollectiveOp::kReduceScatter},
      {"broadcast", CollectiveOp::kBroadcast},
      {"reduce", CollectiveOp::kReduce},
      {"alltoall", CollectiveOp::kAllToAll},
      {"all_to_all", CollectiveOp::kAllToAll},
      {"sendrecv", CollectiveOp::kSendRecv},
  };
  for (const auto& e : kNames) {
    if (e.name == name) return e.op;
  }
  return std::nullopt;
}

const char* collectiveName(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::kAllReduce: return "all_reduce";
    case CollectiveOp::kAllGather: return "all_gather";
    case CollectiveOp::kReduceScatter: return "reduce_scatter";
    case CollectiveOp::kBroadcast: return "broadcast";
    case CollectiveOp::kReduce: return "reduce";
    case CollectiveOp::kAllToAll: return "alltoall";
    case CollectiveOp::kSendRecv: return "sendrecv";
  }
  return "unknown";
}

double busFactor(CollectiveOp op, int ranks) {
  if (ranks <= 0) return 0.0;
  double n = ranks;
  switch (op) {
    case CollectiveOp::kAllReduce: return 2.0 * (n - 1) / n;
    case CollectiveOp::kAllGather:
    case CollectiveOp::kReduceScatter:
    case CollectiveOp::kAllToAll: return (n - 1) / n;
    case CollectiveOp::kBroadcast:
    case CollectiveOp::kReduce:
    case CollectiveOp::kSendRecv: return 1.0;
  }
  return 1.0;
}

std::optional<double> expectedBusbwFromLineRate(CollectiveOp op, int ranks, int nodes, double node_nic_gbps,
                                                double fraction) {
  if (nodes <= 1 || ranks <= 0) return std::nullopt;
  double node_factor = busFactor(op, nodes);
  if (node_factor <= 0.0) return std::nullopt;
  return fraction * (node_nic_gbps / 8.0) * busFactor(op, ranks) / node_factor;
}

Result<double> parseLineRateFraction(const std::string& text) {
  if (text.empty()) return kDefaultLineRateFraction;
  auto fraction = parseDouble(text);
  if (!fraction || !(*fraction > 0) || *fraction > 1) {
    return makeError(ErrorCode::kUsage, "--expect-line-rate=" + text +
                                            ": expected a fraction of the line rate in (0, 1], such as 0.8");
  }
  return *fraction;
}

}  // namespace railkit
