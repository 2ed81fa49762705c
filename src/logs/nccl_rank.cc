#include "logs/nccl_rank.h"

#include <algorithm>

#include <nlohmann/json.hpp>

namespace railkit::logs {
namespace {

template <class T>
nlohmann::json opt(const std::optional<T>& v) {
  if (v) return *v;
  return nullptr;
}

nlohmann::json textOrNull(const std::string& s) { return s.empty() ? nlohmann::json(nullptr) : nlohmann::json(s); }

}  // namespace

nlohmann::json ranksToJson(const NcclRanks& ranks) {
  nlohmann::json list = nlohmann::json::array();
  for (const NcclRank& r : ranks.ranks) {
    list.push_back({{"rank", opt(r.rank)},
                    {"nranks", opt(r.nranks)},
                    {"host", r.host},
                    {"pid", opt(r.pid)},
                    {"dev", opt(r.dev)},
                    {"cuda_dev", opt(r.cuda_dev)},
                    {"bus_id", textOrNull(r.bus_id)},
                    {"network", textOrNull(r.network)},
                    {"net_plugin", textOrNull(r.net_plugin)},
                    {"transport", textOrNull(r.transport)},
                    {"nics", r.nics},
                    {"net_devices", r.net_devices},
                    {"gdr", opt(r.gdr)},
                    {"channels",
                     {{"NET", r.net_channels}, {"P2P", r.p2p_channels}, {"SHM", r.shm_channels}, {"other", r.other_channels}}},
                    {"line", r.line}});
  }
  return {{"per_rank", list}, {"per_rank_not_kept", ranks.not_kept}};
}

NcclRanks mergeRanks(const std::vector<const NcclRanks*>& inputs) {
  NcclRanks out;
  for (const NcclRanks* in : inputs) {
    if (!in) continue;
    out.not_kept += in->not_kept;
    for (const NcclRank& r : in->ranks) {
      if (out.ranks.size() < kMaxRanksKept) out.ranks.push_back(r);
      else ++out.not_kept;
    }
  }
  std::stable_sort(out.ranks.begin(), out.ranks.end(), [](const NcclRank& a, const NcclRank& b) {
    if (a.rank.has_value() != b.rank.has_value()) return a.rank.has_value();
    return a.rank && *a.rank < *b.rank;
  });
  return out;
}

}  // namespace railkit::logs
