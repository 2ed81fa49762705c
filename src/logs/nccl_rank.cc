#include "logs/nccl_rank.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/json_util.h"

namespace railkit::logs {
namespace {

nlohmann::json textOrNull(const std::string& s) {
  return s.empty() ? nlohmann::json(nullptr) : nlohmann::json(s);
}

}  // namespace

// Members are set one by one: nlohmann's initializer lists copy every value
// (twice for nested ones), which made this the costliest step of a
// 1024-rank log after the dump itself.
nlohmann::json ranksToJson(const NcclRanks& ranks) {
  nlohmann::json out = nlohmann::json::object();
  nlohmann::json& list = out["per_rank"] = nlohmann::json::array();
  list.get_ref<nlohmann::json::array_t&>().reserve(ranks.ranks.size());
  for (const NcclRank& r : ranks.ranks) {
    nlohmann::json& o = list.emplace_back(nlohmann::json::object());
    o["rank"] = jsonOpt(r.rank);
    o["nranks"] = jsonOpt(r.nranks);
    o["host"] = r.host;
    o["pid"] = jsonOpt(r.pid);
    o["dev"] = jsonOpt(r.dev);
    o["cuda_dev"] = jsonOpt(r.cuda_dev);
    o["bus_id"] = textOrNull(r.bus_id);
    o["network"] = textOrNull(r.network);
    o["net_plugin"] = textOrNull(r.net_plugin);
    o["transport"] = textOrNull(r.transport);
    o["nics"] = r.nics;
    o["net_devices"] = r.net_devices;
    o["gdr"] = jsonOpt(r.gdr);
    nlohmann::json& ch = o["channels"] = nlohmann::json::object();
    ch["NET"] = r.net_channels;
    ch["P2P"] = r.p2p_channels;
    ch["SHM"] = r.shm_channels;
    ch["other"] = r.other_channels;
    o["line"] = r.line;
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
