#include "core/bandwidth_row.h"

namespace railkit {
namespace {

template <typename T>
nlohmann::json orNull(const std::optional<T>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

nlohmann::json orNull(const std::string& text) {
  return text.empty() ? nlohmann::json(nullptr) : nlohmann::json(text);
}

}  // namespace

void to_json(nlohmann::json& j, const BandwidthHalf& half) {
  j = {{"time_us", half.time_us},
       {"algbw_gbs", half.algbw_gbs},
       {"busbw_gbs", half.busbw_gbs},
       {"wrong", orNull(half.wrong)}};
}

void to_json(nlohmann::json& j, const BandwidthRow& row) {
  j = {{"op", orNull(row.op)},
       {"size_bytes", row.size_bytes},
       {"count", row.count},
       {"type", row.type},
       {"redop", orNull(row.redop)},
       {"root", row.root && *row.root >= 0 ? nlohmann::json(*row.root) : nlohmann::json(nullptr)},
       {"out_of_place", row.out_of_place},
       {"in_place", row.in_place}};
}

}  // namespace railkit
