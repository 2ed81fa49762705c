#include "fabric/sminfo.h"

#include <fmt/core.h>

#include "core/input_file.h"
#include "core/strings.h"
#include "fabric/capture_file.h"

namespace railkit::fabric {
namespace {

// "sminfo: sm lid 1 sm guid 0x200000, activity count 218 priority 0 state 3 SMINFO_MASTER"
std::optional<SmRecord> smLine(std::string_view line) {
  auto w = splitWhitespace(line);
  if (w.size() != 15 || w[0] != "sminfo:" || w[1] != "sm" || w[2] != "lid" || w[4] != "sm" ||
      w[5] != "guid" || w[7] != "activity" || w[8] != "count" || w[10] != "priority" || w[12] != "state")
    return std::nullopt;
  std::string_view guid = w[6];
  if (!guid.empty() && guid.back() == ',') guid.remove_suffix(1);
  auto lid = parseUint(w[3]);
  auto activity = parseUint(w[9]);
  auto priority = parseUint(w[11]);
  auto state = parseUint(w[13]);
  if (!lid || *lid > 0xffff || !parseHex(guid) || !activity || !priority || *priority > 15 || !state ||
      *state > 3)
    return std::nullopt;
  SmRecord r;
  r.lid = static_cast<unsigned>(*lid);
  r.guid = std::string(guid);
  r.activity = *activity;
  r.priority = static_cast<int>(*priority);
  r.state = static_cast<int>(*state);
  r.state_name = std::string(w[14]);
  r.text = std::string(trim(line));
  return r;
}

}  // namespace

Result<SmCapture> parseSminfo(std::string_view text, std::string source) {
  SmCapture capture;
  capture.source = std::move(source);
  long number = 0;
  bool any = false;
  while (!text.empty()) {
    auto newline = text.find('\n');
    std::string_view line = trim(text.substr(0, newline));
    text = newline == std::string_view::npos ? std::string_view{} : text.substr(newline + 1);
    ++number;
    for (char c : line)
      if (static_cast<unsigned char>(c) < 0x20 && c != '\t')
        return makeError(ErrorCode::kInvalidInput,
                         fmt::format("{}:{}: binary data, not sminfo output", capture.source, number));
    if (line.empty()) continue;
    any = true;
    if (auto record = smLine(line)) {
      record->line = number;
      capture.records.push_back(std::move(*record));
    } else if (line.find("iberror") != std::string_view::npos) {
      if (capture.failure_line == 0) capture.failure_line = number, capture.failure_text = std::string(line);
    } else if (!startsWith(line, "ibwarn:") && !startsWith(line, "ibpanic:")) {
      return makeError(
          ErrorCode::kInvalidInput,
          fmt::format("{}:{}: expected sminfo's output ('sminfo: sm lid L sm guid G, activity count "
                      "N priority P state S NAME', or its iberror line); found '{}'",
                      capture.source, number, line.substr(0, 80)));
    }
  }
  if (!any)
    return makeError(
        ErrorCode::kInvalidInput,
        fmt::format("{}: empty: capture sminfo's errors too (sminfo > FILE 2>&1)", capture.source));
  return capture;
}

Result<SmCapture> readSminfoFile(const std::string& path) {
  InputFileOptions options;
  options.what = "sminfo output";
  options.max_bytes = std::size_t{1} << 20;
  return readCaptureFile<SmCapture>(path, options, parseSminfo);
}

}  // namespace railkit::fabric
