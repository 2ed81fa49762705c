#include "core/pair_links.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>

#include "core/strings.h"

namespace railkit {
namespace {

// Four significant digits: a link is judged against a fraction of the
// median, and the exact figure of a slow one is in "slow_links".
std::string figure(double gbps) {
  if (!std::isfinite(gbps) || gbps < 0) return "-";
  return fmt::format("{:.4g}", gbps);
}

const nlohmann::json& member(const nlohmann::json& j, const char* key) {
  static const nlohmann::json null_value;  // an immutable stand-in, not state
  return j.is_object() && j.contains(key) ? j[key] : null_value;
}

double number(const nlohmann::json& j, const char* key) {
  const auto& v = member(j, key);
  return v.is_number() ? v.get<double>() : 0;
}

int integer(const nlohmann::json& j, const char* key) {
  const auto& v = member(j, key);
  return v.is_number_integer() ? v.get<int>() : -1;
}

}  // namespace

std::vector<std::string> encodeLinkRows(int n, const std::vector<PairLinkEntry>& links) {
  if (n < 2) return {};
  std::vector<std::vector<double>> rows(static_cast<std::size_t>(n - 1));
  for (int a = 0; a + 1 < n; ++a)
    rows[static_cast<std::size_t>(a)].assign(static_cast<std::size_t>(n - 1 - a), NAN);
  for (const auto& l : links) {
    int a = std::min(l.a, l.b), b = std::max(l.a, l.b);
    if (a < 0 || b >= n || a == b) continue;
    rows[static_cast<std::size_t>(a)][static_cast<std::size_t>(b - a - 1)] = l.gbps;
  }
  std::vector<std::string> out;
  out.reserve(rows.size());
  for (const auto& row : rows) {
    std::string text;
    for (double g : row) {
      if (!text.empty()) text += ' ';
      text += figure(g);
    }
    out.push_back(std::move(text));
  }
  return out;
}

Result<std::vector<PairLinkEntry>> parseLinkRow(std::string_view row, int a, int n) {
  auto fields = splitWhitespace(row);
  if (a < 0 || a + 1 >= n || static_cast<int>(fields.size()) != n - 1 - a) {
    return makeError(ErrorCode::kInvalidInput,
                     fmt::format("link row {}: expected {} figure(s) for {} ranks, found {}", a,
                                 std::max(0, n - 1 - a), n, fields.size()));
  }
  std::vector<PairLinkEntry> out;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (fields[i] == "-") continue;
    auto g = parseDouble(fields[i]);
    if (!g || !std::isfinite(*g) || *g < 0) {
      return makeError(
          ErrorCode::kInvalidInput,
          fmt::format("link row {}: expected a non-negative Gb/s figure or '-' at field {}, found '{}'", a,
                      i + 1, fields[i]));
    }
    out.push_back(PairLinkEntry{a, a + 1 + static_cast<int>(i), *g, false});
  }
  return out;
}

Result<std::vector<PairLinkEntry>> readPairLinks(const nlohmann::json& pairs) {
  std::vector<PairLinkEntry> out;
  const auto& rows = member(pairs, "link_rows");
  if (!rows.is_array()) {
    for (const auto& l : member(pairs, "links")) {
      if (!l.is_object()) continue;
      const auto& slow = member(l, "slow");
      out.push_back(PairLinkEntry{integer(l, "a"), integer(l, "b"), number(l, "bw_gbps"),
                                  slow.is_boolean() && slow.get<bool>()});
    }
    return out;
  }
  const int n = static_cast<int>(rows.size()) + 1;
  for (int a = 0; a + 1 < n; ++a) {
    const auto& row = rows[static_cast<std::size_t>(a)];
    if (!row.is_string())
      return makeError(ErrorCode::kInvalidInput,
                       fmt::format("link row {}: expected a string, found {}", a, row.type_name()));
    auto links = parseLinkRow(row.get<std::string>(), a, n);
    if (!links) return tl::unexpected(links.error());
    out.insert(out.end(), links->begin(), links->end());
  }
  std::set<std::pair<int, int>> slow;
  for (const auto& s : member(pairs, "slow_links"))
    slow.emplace(std::min(integer(s, "a"), integer(s, "b")), std::max(integer(s, "a"), integer(s, "b")));
  for (auto& l : out) l.slow = slow.count({l.a, l.b}) > 0;
  return out;
}

}  // namespace railkit
