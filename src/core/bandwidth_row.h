#pragma once
// One row of an nccl-tests style table, the same whether `bench` measured it
// or `logs` read it from nccl-tests output, and the one JSON shape both write
// (docs/json.md): {"op", "size_bytes", "count", "type", "redop", "root",
// "out_of_place": {"time_us", "algbw_gbs", "busbw_gbs", "wrong"}, "in_place": {...}}.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace railkit {

struct BandwidthHalf {
  double time_us = 0;
  double algbw_gbs = 0;       // GB/s
  double busbw_gbs = 0;       // GB/s
  std::optional<long> wrong;  // null when not checked (nccl-tests' N/A, or absent)
};

struct BandwidthRow {
  std::string op;  // the collective; null in JSON when unknown
  uint64_t size_bytes = 0;
  uint64_t count = 0;  // elements
  std::string type;
  std::string redop;         // null in JSON when the table has none
  std::optional<long> root;  // null in JSON for collectives without one (nccl-tests prints -1)
  BandwidthHalf out_of_place, in_place;
};

// nlohmann's ADL hooks: `nlohmann::json j = row;`.
void to_json(nlohmann::json& j, const BandwidthHalf& half);
void to_json(nlohmann::json& j, const BandwidthRow& row);

}  // namespace railkit
