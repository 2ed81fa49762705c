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

// Key by key rather than from an initializer list, which copies every
// value once more: `logs` writes up to 10000 rows per table.
void to_json(nlohmann::json& j, const BandwidthHalf& half) {
  j = nlohmann::json::object();
  j["time_us"] = half.time_us;
  j["algbw_gbs"] = half.algbw_gbs;
  j["busbw_gbs"] = half.busbw_gbs;
  j["wrong"] = orNull(half.wrong);
}

void to_json(nlohmann::json& j, const BandwidthRow& row) {
  j = nlohmann::json::object();
  j["op"] = orNull(row.op);
  j["size_bytes"] = row.size_bytes;
  j["count"] = row.count;
  j["type"] = row.type;
  j["redop"] = orNull(row.redop);
  j["root"] = row.root && *row.root >= 0 ? nlohmann::json(*row.root) : nlohmann::json(nullptr);
  to_json(j["out_of_place"], row.out_of_place);
  to_json(j["in_place"], row.in_place);
}

}  // namespace railkit
