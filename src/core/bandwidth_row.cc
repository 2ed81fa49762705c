#include "core/bandwidth_row.h"

#include "core/json_util.h"

namespace railkit {
// Key by key, in key order at the end of the object's map, rather than
// from an initializer list, which copies every value once more: `logs`
// writes up to 10000 rows per table.
void to_json(nlohmann::json& j, const BandwidthHalf& half) {
  j = nlohmann::json::object();
  auto& o = j.get_ref<nlohmann::json::object_t&>();
  o.emplace_hint(o.end(), "algbw_gbs", half.algbw_gbs);
  o.emplace_hint(o.end(), "busbw_gbs", half.busbw_gbs);
  o.emplace_hint(o.end(), "time_us", half.time_us);
  o.emplace_hint(o.end(), "wrong", jsonOpt(half.wrong));
}

void to_json(nlohmann::json& j, const BandwidthRow& row) {
  j = nlohmann::json::object();
  auto& o = j.get_ref<nlohmann::json::object_t&>();
  o.emplace_hint(o.end(), "count", row.count);
  to_json(o.emplace_hint(o.end(), "in_place", nullptr)->second, row.in_place);
  o.emplace_hint(o.end(), "op", jsonOpt(row.op));
  to_json(o.emplace_hint(o.end(), "out_of_place", nullptr)->second, row.out_of_place);
  o.emplace_hint(o.end(), "redop", jsonOpt(row.redop));
  o.emplace_hint(o.end(), "root", jsonOpt(row.root && *row.root >= 0, row.root.value_or(-1)));
  o.emplace_hint(o.end(), "size_bytes", row.size_bytes);
  o.emplace_hint(o.end(), "type", row.type);
}

}  // namespace railkit
