#include "logs/nccl_rank.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/json_util.h"

namespace railkit::logs {
namespace {}  // namespace

// Members are added one by one, in key order at the end of the object's
// map: nlohmann's initializer lists copy every value (twice for nested
// ones), which made this the costliest step of a 1024-rank log after the
// dump itself, and `o[key]` searches the map before each insertion.
nlohmann::json ranksToJson(const NcclRanks& ranks) {
  nlohmann::json out = nlohmann::json::object();
  nlohmann::json& list = out["per_rank"] = nlohmann::json::array();
  list.get_ref<nlohmann::json::array_t&>().reserve(ranks.ranks.size());
  for (const NcclRank& r : ranks.ranks) {
    auto& o = list.emplace_back(nlohmann::json::object()).get_ref<nlohmann::json::object_t&>();
    auto add = [&o](const char* key, nlohmann::json value) {
      o.emplace_hint(o.end(), key, std::move(value));
    };
    add("bus_id", jsonOpt(r.bus_id));
    nlohmann::json channels = nlohmann::json::object();
    auto& ch = channels.get_ref<nlohmann::json::object_t&>();
    ch.emplace_hint(ch.end(), "NET", r.net_channels);
    ch.emplace_hint(ch.end(), "P2P", r.p2p_channels);
    ch.emplace_hint(ch.end(), "SHM", r.shm_channels);
    ch.emplace_hint(ch.end(), "other", r.other_channels);
    add("channels", std::move(channels));
    add("cuda_dev", jsonOpt(r.cuda_dev));
    add("dev", jsonOpt(r.dev));
    add("gdr", jsonOpt(r.gdr));
    add("host", r.host);
    add("line", r.line);
    add("net_devices", r.net_devices);
    add("net_plugin", jsonOpt(r.net_plugin));
    add("network", jsonOpt(r.network));
    add("nics", r.nics);
    add("nranks", jsonOpt(r.nranks));
    add("pid", jsonOpt(r.pid));
    add("rank", jsonOpt(r.rank));
    add("transport", jsonOpt(r.transport));
  }
  out["per_rank_not_kept"] = ranks.not_kept;
  return out;
}

NcclRanks mergeRanks(const std::vector<const NcclRanks*>& inputs) {
  NcclRanks out;
  for (const NcclRanks* in : inputs) {
    if (!in) continue;
    out.not_kept += in->not_kept;
    for (const NcclRank& r : in->ranks) {
      if (out.ranks.size() < kMaxRanksKept)
        out.ranks.push_back(r);
      else
        ++out.not_kept;
    }
  }
  std::stable_sort(out.ranks.begin(), out.ranks.end(), [](const NcclRank& a, const NcclRank& b) {
    if (a.rank.has_value() != b.rank.has_value()) return a.rank.has_value();
    return a.rank && *a.rank < *b.rank;
  });
  return out;
}

}  // namespace railkit::logs
