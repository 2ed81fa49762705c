#include "fabric/iblinkinfo.h"

#include <fmt/core.h>

#include "core/input_file.h"
#include "core/strings.h"
#include "fabric/capture_file.h"

namespace railkit::fabric {

std::string normaliseGuid(std::string_view text) {
  std::string g = toLower(text);
  if (startsWith(g, "s-") || startsWith(g, "h-")) g.erase(0, 2);
  if (startsWith(g, "0x")) g.erase(0, 2);
  auto first = g.find_first_not_of('0');
  return first == std::string::npos ? "0" : g.substr(first);
}

namespace {

// "3    2[  ] ==(                Down/ Polling)==> ..." -> port 2, Down, Polling.
bool portLine(std::string_view line, SwitchPortState& out) {
  auto open = line.find("==(");
  auto close = line.find(")==>");
  auto bracket = line.find('[');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open ||
      bracket == std::string_view::npos || bracket > open)
    return false;
  auto head = splitWhitespace(line.substr(0, bracket));
  if (head.size() != 2) return false;
  auto port = parseUint(head[1]);
  if (!port || *port == 0 || *port > 255) return false;
  std::string_view link = line.substr(open + 3, close - open - 3);
  auto slash = link.rfind('/');
  if (slash == std::string_view::npos) return false;
  auto before = splitWhitespace(link.substr(0, slash));
  std::string_view phys = trim(link.substr(slash + 1));
  if (before.empty() || phys.empty()) return false;
  out.port = static_cast<int>(*port);
  out.state = std::string(before.back());
  out.phys = std::string(phys);
  return true;
}

}  // namespace

Result<LinkInfoCapture> parseIblinkinfo(std::string_view text, std::string source) {
  LinkInfoCapture capture;
  capture.source = std::move(source);
  enum class Block { kNone, kSwitch, kCa } block = Block::kNone;
  std::string guid, description;
  long number = 0;
  while (!text.empty()) {
    auto newline = text.find('\n');
    std::string_view line = trim(text.substr(0, newline));
    text = newline == std::string_view::npos ? std::string_view{} : text.substr(newline + 1);
    ++number;
    for (char c : line)
      if (static_cast<unsigned char>(c) < 0x20 && c != '\t')
        return makeError(ErrorCode::kInvalidInput,
                         fmt::format("{}:{}: binary data, not iblinkinfo output", capture.source, number));
    if (line.empty() || startsWith(line, "ibwarn:")) continue;
    if (startsWith(line, "Switch:")) {
      auto words = splitWhitespace(line.substr(7));
      if (words.empty() || !startsWith(words[0], "0x"))
        return makeError(ErrorCode::kInvalidInput,
                         fmt::format("{}:{}: expected 'Switch: 0xGUID DESCRIPTION:'; found '{}'",
                                     capture.source, number, line.substr(0, 80)));
      block = Block::kSwitch;
      guid = normaliseGuid(words[0]);
      std::string_view rest = trim(line.substr(line.find(words[0]) + words[0].size()));
      if (!rest.empty() && rest.back() == ':') rest.remove_suffix(1);
      description = std::string(rest);
      continue;
    }
    if (startsWith(line, "CA:") || startsWith(line, "Router:")) {
      block = Block::kCa;
      continue;
    }
    SwitchPortState state;
    if (block == Block::kSwitch && portLine(line, state)) {
      state.guid = guid;
      state.description = description;
      state.line = number;
      capture.ports.push_back(std::move(state));
      continue;
    }
    if (block == Block::kCa && line.find("==(") != std::string_view::npos) continue;
    return makeError(
        ErrorCode::kInvalidInput,
        fmt::format("{}:{}: expected iblinkinfo's 'Switch: 0xGUID NAME:' or 'CA: NAME:' headers and "
                    "'LID PORT[ ] ==( ... STATE/ PHYS)==> ...' port lines; found '{}'",
                    capture.source, number, line.substr(0, 80)));
  }
  if (capture.ports.empty())
    return makeError(ErrorCode::kInvalidInput,
                     fmt::format("{}: no switch port: not iblinkinfo output", capture.source));
  return capture;
}

Result<LinkInfoCapture> readIblinkinfoFile(const std::string& path) {
  InputFileOptions options;
  options.what = "iblinkinfo output";
  options.max_bytes = std::size_t{256} << 20;
  return readCaptureFile<LinkInfoCapture>(path, options, parseIblinkinfo);
}

}  // namespace railkit::fabric
