#include "fabric/perfquery.h"

#include <fmt/core.h>

#include <map>
#include <utility>

#include "core/input_file.h"
#include "core/strings.h"
#include "fabric/capture_file.h"

namespace railkit::fabric {

const std::vector<ErrorCounter>& errorCounters() {
  // The counters of a failing link or port, and the thresholds infiniband-
  // diags ships in /etc/infiniband-diags/error_thresholds as its example.
  static const std::vector<ErrorCounter> kCounters = {
      {"SymbolErrorCounter", 10}, {"LinkErrorRecoveryCounter", 10}, {"LinkDownedCounter", 10},
      {"PortRcvErrors", 10},      {"PortXmitDiscards", 100},        {"ExcessiveBufferOverrunErrors", 10},
  };
  return kCounters;
}

namespace {

// "# Port counters: Lid 3 port 2 (CapMask: 0x1300)" (or "Port extended counters").
bool header(std::string_view line, PortCounters& out) {
  if (!startsWith(line, "# Port counters:") && !startsWith(line, "# Port extended counters:")) return false;
  auto w = splitWhitespace(line);
  for (std::size_t i = 0; i + 3 < w.size(); ++i)
    if (w[i] == "Lid" && w[i + 2] == "port") {
      auto lid = parseUint(w[i + 1]);
      auto port = parseUint(w[i + 3]);
      if (!lid || *lid > 0xffff || !port || *port > 255) return false;
      out.lid = static_cast<unsigned>(*lid);
      out.port = static_cast<int>(*port);
      return true;
    }
  return false;
}

}  // namespace

Result<CounterCapture> parsePerfquery(std::string_view text, std::string source) {
  CounterCapture capture;
  capture.source = std::move(source);
  long number = 0;
  constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  std::size_t current = kNone;  // the block whose lines follow
  std::map<std::pair<unsigned, int>, std::size_t> index;
  auto bad = [&](const std::string& what) {
    return makeError(ErrorCode::kInvalidInput, fmt::format("{}:{}: {}", capture.source, number, what));
  };
  while (!text.empty()) {
    auto newline = text.find('\n');
    std::string_view line = trim(text.substr(0, newline));
    text = newline == std::string_view::npos ? std::string_view{} : text.substr(newline + 1);
    ++number;
    for (char c : line)
      if (static_cast<unsigned char>(c) < 0x20 && c != '\t') return bad("binary data, not perfquery output");
    if (line.empty() || startsWith(line, "ibwarn:") || line.find("iberror") != std::string_view::npos)
      continue;
    PortCounters block;
    if (header(line, block)) {
      block.line = number;
      // A port read twice in one file: the later block is its reading.
      auto [it, added] = index.try_emplace({block.lid, block.port}, capture.ports.size());
      if (added)
        capture.ports.push_back(std::move(block));
      else
        capture.ports[it->second] = std::move(block);
      current = it->second;
      continue;
    }
    auto colon = line.find(':');
    auto dots = line.find_first_not_of('.', colon == std::string_view::npos ? 0 : colon + 1);
    if (current == kNone || colon == std::string_view::npos || colon == 0 || dots == std::string_view::npos)
      return bad(
          fmt::format("expected a perfquery block ('# Port counters: Lid L port P' then 'Name:....value' "
                      "lines); found '{}'",
                      line.substr(0, 80)));
    std::string_view value = line.substr(dots);
    auto n = startsWith(value, "0x") ? parseHex(value) : parseUint(value);
    if (!n) return bad(fmt::format("'{}' is not a counter value", value.substr(0, 40)));
    std::string name(line.substr(0, colon));
    capture.ports[current].values[name] = *n;
    capture.ports[current].lines[name] = number;
  }
  if (capture.ports.empty())
    return makeError(
        ErrorCode::kInvalidInput,
        fmt::format("{}: no '# Port counters: Lid L port P' block: not perfquery output", capture.source));
  return capture;
}

Result<CounterCapture> readPerfqueryFile(const std::string& path) {
  InputFileOptions options;
  options.what = "perfquery output";
  options.max_bytes = std::size_t{64} << 20;
  return readCaptureFile<CounterCapture>(path, options, parsePerfquery);
}

}  // namespace railkit::fabric
