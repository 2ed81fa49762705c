#include "logs/perftest.h"

#include <cctype>
#include <cstring>

#include "core/strings.h"
#include "logs/line_prefix.h"

namespace railkit::logs {
namespace {

// perftest's MB/sec and MiB/sec are both 2^20 bytes per second.
constexpr double kMebibytesToGbps = 1048576.0 * 8.0 / 1e9;

bool isDigit(char c) {
  return c >= '0' && c <= '9';
}

std::optional<double> perftestNumber(std::string_view s) {
  if (s.empty() || s.size() > 40) return std::nullopt;
  if (!isDigit(s[0]) && s[0] != '-' && s[0] != '.') return std::nullopt;
  return parseDouble(s);
}

std::optional<int> leadingInt(std::string_view s) {
  size_t n = 0;
  while (n < s.size() && n < 9 && isDigit(s[n])) ++n;
  if (n == 0) return std::nullopt;
  auto v = parseUint(s.substr(0, n));
  if (!v) return std::nullopt;
  return static_cast<int>(*v);
}

// "RDMA_Write BW Test", "Send Latency Test", "RDMA_Write Bidirectional BW Test".
bool isTitle(std::string_view t) {
  return t.size() < 80 && (endsWith(t, " BW Test") || endsWith(t, " Latency Test"));
}

std::string toolFromTitle(std::string_view title) {
  std::string verb = startsWith(title, "RDMA_Write")  ? "write"
                     : startsWith(title, "RDMA_Read") ? "read"
                     : startsWith(title, "Send")      ? "send"
                     : startsWith(title, "Atomic")    ? "atomic"
                                                      : "";
  if (verb.empty()) return "";
  return "ib_" + verb + (endsWith(title, "Latency Test") ? "_lat" : "_bw");
}

// "ib_write_bw" and kin inside a command line or banner, or "".
std::string findTool(std::string_view line) {
  for (size_t at = line.find("ib_"); at != std::string_view::npos; at = line.find("ib_", at + 3)) {
    if (at > 0 && (std::isalnum(static_cast<unsigned char>(line[at - 1])) || line[at - 1] == '_')) continue;
    size_t end = at + 3;
    while (end < line.size() && (std::islower(static_cast<unsigned char>(line[end])) || line[end] == '_'))
      ++end;
    std::string_view name = line.substr(at, end - at);
    if (endsWith(name, "_bw") || endsWith(name, "_lat")) return std::string(name);
  }
  return "";
}

bool isErrorLine(std::string_view t) {
  static constexpr std::string_view kStarts[] = {
      "Completion with error", "Failed status",       "Failed to", "Couldn't", "Unable to",
      "Problems with",         "No IB devices found", "IB device", "Error",    "ERROR"};
  for (auto s : kStarts)
    if (startsWith(t, s)) return true;
  return startsWith(t, "Port number") && t.find("state is Down") != std::string_view::npos;
}

}  // namespace

const char* wcStatusName(int status) {
  static constexpr const char* kNames[] = {"success",
                                           "local length error",
                                           "local QP operation error",
                                           "local EE context operation error",
                                           "local protection error",
                                           "work request flushed",
                                           "memory window bind error",
                                           "bad response",
                                           "local access error",
                                           "remote invalid request",
                                           "remote access error",
                                           "remote operation error",
                                           "transport retry counter exceeded",
                                           "RNR retry counter exceeded",
                                           "local RDD violation",
                                           "remote invalid RD request",
                                           "remote aborted",
                                           "invalid EE context number",
                                           "invalid EE context state",
                                           "fatal error",
                                           "response timeout",
                                           "general error",
                                           "tag matching error",
                                           "tag matching rendezvous incomplete"};
  if (status < 0 || status >= static_cast<int>(sizeof(kNames) / sizeof(kNames[0]))) return "unknown status";
  return kNames[status];
}

void PerftestParser::feedLine(std::string_view raw, uint64_t line_number) {
  feedLine(raw, stripLinePrefix(raw), line_number);
}

void PerftestParser::feedLine(std::string_view, std::string_view line, uint64_t line_number) {
  size_t first = firstNonBlank(line);
  if (first == std::string_view::npos) return;
  char c = line[first];
  // Most lines of a big NCCL log start with a host name: reject them on the
  // first character before any search.
  if (skipsLineStartingWith(c, line_number)) return;
  // A command line that names the tool comes before the output, near the top.
  bool command_zone = inCommandZone(line_number) && line.size() < 1024;
  std::string_view t = trim(line);
  if (command_zone && (c == 'i' || c == 'S' || t.find('$') != std::string_view::npos)) {
    result_.tool = findTool(t);
    if (!result_.tool.empty() && startsWith(t, "Starting RDMA")) recognised_ = true;
  }
  if (isTitle(t)) {
    recognised_ = true;
    if (result_.test.empty()) {
      result_.test = std::string(t);
      result_.title_line = line_number;
      result_.latency = endsWith(t, "Latency Test");
      if (result_.tool.empty()) result_.tool = toolFromTitle(t);
    }
    return;
  }
  if (startsWith(t, "#bytes")) {
    recognised_ = true;
    parseTableHeader(t);
    return;
  }
  if (!recognised_) {
    if (startsWith(t, "WARNING: BW peak won't be measured")) result_.peak_not_measured = true;
    return;
  }
  if (isDigit(c)) {
    parseRow(t, line_number);
    return;
  }
  if (isErrorLine(t)) {
    ++result_.error_lines;
    std::optional<int> status;
    if (startsWith(t, "Failed status ")) status = leadingInt(t.substr(14));
    // Memory stays flat however many error lines come: the first ones say
    // what went wrong, the count says how often.
    if (result_.errors.size() >= kMaxKeptErrors && (kept_status_ || !status)) return;
    kept_status_ = kept_status_ || status.has_value();
    result_.errors.push_back({std::string(t.substr(0, 512)), line_number, status});
    return;
  }
  if (columns_.empty() && t.find(" : ") != std::string_view::npos) parseSettings(t);
}

// " Dual-port       : OFF            Device         : mlx5_3" holds two
// settings: a value ends at a tab or a run of two spaces before the next key.
void PerftestParser::parseSettings(std::string_view line) {
  if (startsWith(line, "local address") || startsWith(line, "remote address") || startsWith(line, "GID:"))
    return;
  std::string_view rest = line;
  std::string key;
  size_t colon = rest.find(':');
  if (colon == std::string_view::npos) return;
  key = std::string(trim(rest.substr(0, colon)));
  rest = rest.substr(colon + 1);
  while (!key.empty() && key.size() < 40 && result_.settings.size() < 64) {
    size_t next = rest.find(':');
    std::string_view value = rest;
    std::string next_key;
    if (next != std::string_view::npos) {
      std::string_view segment = rest.substr(0, next);
      size_t end = segment.find_last_not_of(" \t");
      segment = segment.substr(0, end == std::string_view::npos ? 0 : end + 1);
      size_t gap = std::string_view::npos;
      for (size_t i = 0; i + 1 < segment.size(); ++i)
        if (segment[i] == '\t' || (segment[i] == ' ' && segment[i + 1] == ' ')) gap = i;
      if (gap != std::string_view::npos) {
        value = segment.substr(0, gap);
        next_key = std::string(trim(segment.substr(gap)));
      } else {
        value = rest;  // one value that contains a colon
        next = std::string_view::npos;
      }
    }
    std::string v(trim(value));
    if (key == "Device")
      result_.device = v;
    else if (key == "Link type")
      result_.link_type = v;
    else if (key == "Transport type")
      result_.transport_type = v;
    else if (key == "Connection type")
      result_.connection_type = v;
    else if (key == "rdma_cm QPs")
      result_.rdma_cm_qps = v;
    else if (key == "Data ex. method")
      result_.data_exchange = v;
    else if (key == "Number of qps")
      result_.qps = leadingInt(v);
    else if (key == "Mtu")
      result_.mtu_bytes = leadingInt(v);
    else if (key == "GID index")
      result_.gid_index = leadingInt(v);
    else if (key == "TX depth")
      result_.tx_depth = leadingInt(v);
    result_.settings.emplace_back(key, v);
    if (next == std::string_view::npos || next_key.empty()) break;
    key = next_key;
    rest = rest.substr(next + 1);
  }
}

void PerftestParser::parseTableHeader(std::string_view line) {
  auto tokens = splitWhitespace(line);
  columns_.clear();
  for (size_t i = 0; i < tokens.size(); ++i) {
    std::string name(tokens[i]);
    if ((name == "BW" || name == "99%" || name == "99.9%") && i + 1 < tokens.size()) {
      name.push_back(' ');
      name.append(tokens[++i]);
    }
    auto unit = [&] {
      auto open = name.find('['), close = name.find(']');
      return open != std::string::npos && close != std::string::npos && close > open
                 ? name.substr(open + 1, close - open - 1)
                 : std::string();
    };
    // perftest's column titles: the bandwidth tools' are fixed, the latency
    // tools' carry their unit, and only microseconds are read as times.
    struct Title {
      std::string_view text;
      bool whole;  // the whole name, not a prefix
      bool usec;   // the unit must be usec
      Column column;
    };
    static constexpr Title kTitles[] = {
        {"#bytes", true, false, Column::kBytes},       {"#iterations", true, false, Column::kIterations},
        {"BW peak[", false, false, Column::kBwPeak},   {"BW average[", false, false, Column::kBwAvg},
        {"MsgRate[", false, false, Column::kMsgRate},  {"t_min", false, true, Column::kTMin},
        {"t_max", false, true, Column::kTMax},         {"t_typical", false, true, Column::kTTypical},
        {"t_avg", false, true, Column::kTAvg},         {"t_stdev", false, true, Column::kTStdev},
        {"99% percentile", false, true, Column::kP99}, {"99.9% percentile", false, true, Column::kP999},
    };
    Column column = Column::kOther;
    bool usec = unit() == "usec";
    for (const Title& t : kTitles) {
      if ((t.whole ? name == t.text : startsWith(name, t.text)) && (!t.usec || usec)) {
        column = t.column;
        break;
      }
    }
    if (column == Column::kBwPeak || column == Column::kBwAvg) {
      result_.bw_unit = unit();
      bw_factor_ = result_.bw_unit == "Gb/sec"                                   ? 1.0
                   : result_.bw_unit == "MB/sec" || result_.bw_unit == "MiB/sec" ? kMebibytesToGbps
                   : result_.bw_unit == "GB/sec"                                 ? 8.0
                                                                                 : 0.0;
    }
    if (column >= Column::kTMin && column <= Column::kP999) result_.latency = true;
    columns_.push_back(column);
  }
}

void PerftestParser::parseRow(std::string_view line, uint64_t line_number) {
  if (columns_.empty()) return;
  auto tokens = splitWhitespace(line);
  if (tokens.size() != columns_.size()) return;
  PerftestRow row;
  row.line = line_number;
  bool have_bytes = false;
  for (size_t i = 0; i < tokens.size(); ++i) {
    auto v = perftestNumber(tokens[i]);
    if (!v) return;
    auto bw = [&]() -> std::optional<double> {
      if (bw_factor_ == 0.0) return std::nullopt;
      return *v * bw_factor_;
    };
    switch (columns_[i]) {
      case Column::kBytes:
        row.bytes = *v;
        have_bytes = true;
        break;
      case Column::kIterations: row.iterations = *v; break;
      case Column::kBwPeak:
        if (!result_.peak_not_measured) row.bw_peak_gbps = bw();
        break;
      case Column::kBwAvg: row.bw_avg_gbps = bw(); break;
      case Column::kMsgRate: row.msg_rate_mpps = *v; break;
      case Column::kTMin: row.t_min_us = *v; break;
      case Column::kTMax: row.t_max_us = *v; break;
      case Column::kTTypical: row.t_typical_us = *v; break;
      case Column::kTAvg: row.t_avg_us = *v; break;
      case Column::kTStdev: row.t_stdev_us = *v; break;
      case Column::kP99: row.p99_us = *v; break;
      case Column::kP999: row.p999_us = *v; break;
      case Column::kOther: break;
    }
  }
  if (!have_bytes) return;
  if (result_.rows.size() >= kMaxTableRows) {
    ++result_.rows_not_kept;
    return;
  }
  result_.rows.push_back(row);
}

PerftestResult parsePerftest(std::string_view text) {
  PerftestParser parser;
  uint64_t n = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = text.substr(pos, nl - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    parser.feedLine(line, ++n);
    pos = nl + 1;
  }
  return parser.result();
}

}  // namespace railkit::logs
