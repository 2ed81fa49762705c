#include "logs/nccl_tests_table.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <cstring>

#include "core/strings.h"
#include "logs/line_prefix.h"

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

std::optional<double> tableNumber(std::string_view s) {
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

bool isType(std::string_view s) {
  return !s.empty() && !tableNumber(s) && s.size() < 16;
}

// New layout: size count type redop root  t algbw busbw wrong  t algbw busbw wrong (13)
// Old layout: size count type  t algbw busbw error  t algbw busbw error (11), or
//             size count type redop t algbw busbw error ... (12)
std::optional<NcclTestsRow> parseRow(const std::vector<std::string_view>& f, bool& old) {
  if (f.size() < 11) return std::nullopt;
  auto size = tableNumber(f[0]);
  auto count = tableNumber(f[1]);
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
      auto v = tableNumber(f[i++]);
      if (!v) return std::nullopt;
      *targets[half][k] = *v;
    }
    std::string_view last = f[i++];
    if (wrongColumn) {
      auto w = wrongCount(last);
      if (!w) return std::nullopt;
      (half == 0 ? row.oop_wrong : row.ip_wrong) = w;
    } else {
      if (last != "N/A" && !tableNumber(last)) return std::nullopt;
    }
  }
  if (!wrongColumn) old = true;
  return row;
}

std::optional<long> longAfter(const std::vector<std::string_view>& f, std::string_view key) {
  for (size_t i = 0; i + 1 < f.size(); ++i)
    if (f[i] == key) {
      auto v = parseInt(f[i + 1]);
      if (v) return static_cast<long>(*v);
    }
  return std::nullopt;
}

// "mpirun ... /opt/nccl-tests/build/all_reduce_perf -b 8" -> "all_reduce".
std::string opFromCommand(std::string_view line) {
  auto at = line.find("_perf");
  if (at == std::string_view::npos) return "";
  size_t begin = at;
  while (begin > 0 && (std::islower(static_cast<unsigned char>(line[begin - 1])) || line[begin - 1] == '_'))
    --begin;
  std::string name(line.substr(begin, at - begin));
  static constexpr std::string_view kOps[] = {"all_reduce", "all_gather", "reduce_scatter", "broadcast",
                                              "reduce",     "alltoall",   "sendrecv",       "hypercube",
                                              "gather",     "scatter"};
  for (auto op : kOps)
    if (name == op) return name;
  return "";
}

}  // namespace

void NcclTestsTableParser::parseComment(std::string_view rest, uint64_t line_number) {
  constexpr std::string_view kAvg = "# Avg bus bandwidth";
  constexpr std::string_view kOob = "# Out of bounds values";
  if (rest.rfind(kAvg, 0) == 0) {
    auto colon = rest.find(':');
    if (colon != std::string_view::npos) {
      auto f = fields(rest.substr(colon + 1));
      if (!f.empty()) table_.avg_busbw_gbs = tableNumber(f[0]);
    }
    return;
  }
  if (rest.rfind(kOob, 0) == 0) {
    auto f = fields(rest);
    std::string joined;
    for (auto s : f) {
      if (!joined.empty()) joined += ' ';
      joined += s;
    }
    table_.out_of_bounds = joined;
    return;
  }
  auto f = fields(rest.substr(1));
  if (f.empty()) return;
  if (f[0] == "nThread") {
    table_.header_seen = true;
    table_.nthread = longAfter(f, "nThread");
    table_.ngpus = longAfter(f, "nGpus");
    for (size_t i = 1; i + 1 < f.size(); ++i)  // "iters: 20", not "warmup iters:" / "agg iters:"
      if (f[i] == "iters:" && f[i - 1] != "warmup" && f[i - 1] != "agg") {
        if (auto v = parseInt(f[i + 1])) table_.iters = static_cast<long>(*v);
      }
    if (auto v = longAfter(f, "minBytes")) table_.min_bytes = static_cast<double>(*v);
    if (auto v = longAfter(f, "maxBytes")) table_.max_bytes = static_cast<double>(*v);
  } else if (f[0] == "Rank" && f.size() >= 4 && table_.ranks.size() < 1000000) {
    auto rank = parseInt(f[1]);
    if (!rank) return;
    table_.ranks.push_back(static_cast<long>(*rank));
    for (size_t i = 2; i + 1 < f.size(); ++i) {
      if (f[i] != "on") continue;
      std::string host(f[i + 1]);
      if (table_.hosts.size() < 100000 && host_set_.insert(host).second)
        table_.hosts.push_back(std::move(host));
      break;
    }
  } else if (f[0] == "size" && f.size() >= 8 && std::find(f.begin(), f.end(), "busbw") != f.end()) {
    table_.header_seen = true;
  }
  (void)line_number;
}

void NcclTestsTableParser::feedLine(std::string_view raw, uint64_t line_number) {
  if (raw.size() > 4096) return;
  feedLine(raw, stripLinePrefix(raw), line_number);
}

void NcclTestsTableParser::feedLine(std::string_view raw, std::string_view line, uint64_t line_number) {
  if (raw.size() > 4096) return;
  size_t first = firstNonBlank(line);
  if (first == std::string_view::npos) return;
  char c = line[first];
  if (c == '#') {
    parseComment(line.substr(first), line_number);
    return;
  }
  // A header whose '#' was lost, or the verdict and the average of a table
  // copied without its comment marks: they still count.
  if (isBareTableText(line.substr(first))) {
    parseComment("# " + std::string(line.substr(first, 1024)), line_number);
    return;
  }
  if (c < '0' || c > '9') {
    // A command line that names the test binary gives the collective.
    // Only near the top, before the table: big NCCL logs must not pay for it.
    if (inCommandZone(line_number) && (c == '$' || c == '/' || c == '.' || c == 'm' || c == 's' ||
                                       std::memchr(line.data(), '$', line.size()) != nullptr)) {
      table_.op = opFromCommand(line);
      if (!table_.op.empty()) table_.op_line = line_number;
    }
    return;
  }
  auto f = fields(line);
  bool old = false;
  if (auto row = parseRow(f, old)) {
    if (table_.rows.size() >= kMaxTableRows) {
      ++table_.rows_not_kept;
      return;
    }
    row->line = line_number;
    table_.old_layout = table_.old_layout || old;
    if (row->oop_wrong) wrong_ += *row->oop_wrong;
    if (row->ip_wrong) wrong_ += *row->ip_wrong;
    table_.rows.push_back(std::move(*row));
  }
}

NcclTestsTable NcclTestsTableParser::result() const {
  NcclTestsTable table = table_;
  double largest = -1;
  for (const auto& r : table.rows) {
    double peak = std::max(r.oop_busbw_gbs, r.ip_busbw_gbs);
    if (!table.peak_busbw_gbs || peak > *table.peak_busbw_gbs) table.peak_busbw_gbs = peak;
    if (r.size_bytes >= largest) {
      largest = r.size_bytes;
      table.largest_busbw_gbs = std::max(r.oop_busbw_gbs, r.ip_busbw_gbs);
    }
  }
  if (!table.rows.empty() && !table.old_layout) table.wrong_total = wrong_;
  return table;
}

NcclTestsTable parseNcclTestsTable(std::string_view text) {
  NcclTestsTableParser parser;
  uint64_t line_number = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    parser.feedLine(text.substr(pos, nl - pos), ++line_number);
    pos = nl + 1;
  }
  return parser.result();
}

}  // namespace railkit::logs
