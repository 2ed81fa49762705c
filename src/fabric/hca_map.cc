#include "fabric/hca_map.h"

#include <fmt/core.h>

#include "core/input_file.h"
#include "core/strings.h"
#include "fabric/capture_file.h"
#include "fabric/rails.h"

namespace railkit::fabric {

std::string normaliseHcaKey(std::string_view key) {
  // Both prefixes off, as often as they appear, so that a stored key
  // normalises to itself.
  std::string k = toLower(key);
  while (startsWith(k, "h-") || startsWith(k, "0x")) k.erase(0, 2);
  return k;
}

const HcaMapEntry* HcaMap::find(const std::string& ca_id) const {
  auto it = entries.find(normaliseHcaKey(ca_id));
  return it == entries.end() ? nullptr : &it->second;
}

Result<HcaMap> parseHcaMap(std::string_view text, std::string source) {
  HcaMap map;
  map.source = std::move(source);
  long number = 0;
  while (!text.empty()) {
    auto newline = text.find('\n');
    std::string_view line = trim(text.substr(0, newline));
    text = newline == std::string_view::npos ? std::string_view{} : text.substr(newline + 1);
    ++number;
    for (char c : line)
      if (static_cast<unsigned char>(c) < 0x20 && c != '\t')
        return makeError(ErrorCode::kInvalidInput,
                         fmt::format("{}:{}: binary data, not an HCA map", map.source, number));
    if (line.empty() || line.front() == '#') continue;
    auto words = splitWhitespace(line);
    std::string host, device;
    if (words.size() != 3 ||
        !splitHcaDescription(std::string(words[1]) + " " + std::string(words[2]), host, device))
      return makeError(
          ErrorCode::kInvalidInput,
          fmt::format("{}:{}: expected 'HCA HOST DEVICE' (an HCA id or GUID, its host, and a device "
                      "name ending in its number, such as mlx5_3); found '{}'",
                      map.source, number, line.substr(0, 80)));
    std::string key = normaliseHcaKey(words[0]);
    auto [it, added] = map.entries.try_emplace(key, HcaMapEntry{host, device, number});
    if (!added)
      return makeError(ErrorCode::kInvalidInput,
                       fmt::format("{}:{}: {} is mapped a second time (first at line {})", map.source, number,
                                   words[0], it->second.line));
  }
  if (map.entries.empty())
    return makeError(ErrorCode::kInvalidInput, fmt::format("{}: no 'HCA HOST DEVICE' line", map.source));
  return map;
}

Result<HcaMap> readHcaMapFile(const std::string& path) {
  InputFileOptions options;
  options.what = "HCA map";
  options.max_bytes = std::size_t{16} << 20;
  return readCaptureFile<HcaMap>(path, options, parseHcaMap);
}

}  // namespace railkit::fabric
