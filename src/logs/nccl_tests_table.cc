#include "logs/nccl_tests_table.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>

namespace railkit::logs {
namespace {

std::vector<std::string_view> fields(std::string_view line) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
  return out;
}

std::optional<double> number(std::string_view s) {
  if (s.empty() || s.size() > 64) return std::nullopt;
  std::string copy(s);
  char* end = nullptr;
  double v = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size()) return std::nullopt;
  return v;
}

std::optional<long> wrongCount(std::string_view s) {
  if (s == "N/A") return 0;
  long v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

// Drops what launchers put in front of each line: mpirun's `[1,0]<stdout>:`.
std::string_view stripLauncherPrefix(std::string_view line) {
  if (!line.empty() && line[0] == '[') {
    auto close = line.find("]<std");
    if (close != std::string_view::npos && close < 24) {
      auto colon = line.find(':', close);
      if (colon != std::string_view::npos) return line.substr(colon + 1);
    }
  }
  return line;
}

bool isType(std::string_view s) {
  return !s.empty() && !number(s) && s.size() < 16;
}

// New layout: size count type redop root  t algbw busbw wrong  t algbw busbw wrong (13)
// Old layout: size count type  t algbw busbw error  t algbw busbw error (11), or
//             size count type redop t algbw busbw error ... (12)
std::optional<NcclTestsRow> parseRow(const std::vector<std::string_view>& f, bool& old) {
  if (f.size() < 11) return std::nullopt;
  auto size = number(f[0]);
  auto count = number(f[1]);
  if (!size || !count || !isType(f[2])) return std::nullopt;
  NcclTestsRow row;
  row.size_bytes = *size;
  row.count = *count;
  row.type = std::string(f[2]);
  size_t i = 3;
  if (f.size() == 13) {
    row.redop = std::string(f[3]);
    long r = 0;
    auto [p, ec] = std::from_chars(f[4].data(), f[4].data() + f[4].size(), r);
    if (ec != std::errc() || p != f[4].data() + f[4].size()) return std::nullopt;
    row.root = r;
    i = 5;
  } else if (f.size() == 12) {
    row.redop = std::string(f[3]);
    i = 4;
  } else if (f.size() != 11) {
    return std::nullopt;
  }
  double* targets[2][3] = {{&row.oop_time_us, &row.oop_algbw_gbs, &row.oop_busbw_gbs},
                           {&row.ip_time_us, &row.ip_algbw_gbs, &row.ip_busbw_gbs}};
  bool wrongColumn = f.size() == 13;
  for (int half = 0; half < 2; ++half) {
    for (int k = 0; k < 3; ++k) {
      auto v = number(f[i++]);
      if (!v) return std::nullopt;
      *targets[half][k] = *v;
    }
    std::string_view last = f[i++];
    if (wrongColumn) {
      auto w = wrongCount(last);
      if (!w) return std::nullopt;
      (half == 0 ? row.oop_wrong : row.ip_wrong) = w;
    } else {
      if (last != "N/A" && !number(last)) return std::nullopt;
    }
  }
  if (!wrongColumn) old = true;
  return row;
}

}  // namespace

NcclTestsTable parseNcclTestsTable(std::string_view text) {
  NcclTestsTable table;
  long wrong = 0;
  int lineNo = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++lineNo;
    if (line.size() > 4096) { if (nl == text.size()) break; continue; }
    line = stripLauncherPrefix(line);
    auto hash = line.find('#');
    if (hash != std::string_view::npos) {
      std::string_view rest = line.substr(hash);
      constexpr std::string_view kAvg = "# Avg bus bandwidth";
      constexpr std::string_view kOob = "# Out of bounds values";
      if (rest.rfind(kAvg, 0) == 0) {
        auto colon = rest.find(':');
        if (colon != std::string_view::npos) {
          auto f = fields(rest.substr(colon + 1));
          if (!f.empty()) table.avg_busbw_gbs = number(f[0]);
        }
      } else if (rest.rfind(kOob, 0) == 0) {
        auto f = fields(rest);
        std::string joined;
        for (auto s : f) { if (!joined.empty()) joined += ' '; joined += s; }
        table.out_of_bounds = joined;
      }
      if (nl == text.size()) break;
      continue;
    }
    auto f = fields(line);
    bool old = false;
    if (auto row = parseRow(f, old)) {
      row->line = lineNo;
      table.old_layout = table.old_layout || old;
      if (row->oop_wrong) wrong += *row->oop_wrong;
      if (row->ip_wrong) wrong += *row->ip_wrong;
      table.rows.push_back(std::move(*row));
    }
    if (nl == text.size()) break;
  }
  double largest = -1;
  for (const auto& r : table.rows) {
    double peak = std::max(r.oop_busbw_gbs, r.ip_busbw_gbs);
    if (!table.peak_busbw_gbs || peak > *table.peak_busbw_gbs) table.peak_busbw_gbs = peak;
    if (r.size_bytes >= largest) {
      largest = r.size_bytes;
      table.largest_busbw_gbs = std::max(r.oop_busbw_gbs, r.ip_busbw_gbs);
    }
  }
  if (!table.rows.empty() && !table.old_layout) table.wrong_total = wrong;
  return table;
}

}  // namespace railkit::logs
