#include "sys/parsers.h"

#include "core/strings.h"
#include "sys/paths.h"

namespace railkit::sys {

std::optional<double> parseRateGbps(std::string_view text) {
  auto words = splitWhitespace(trim(text));
  if (words.size() < 2 || !startsWith(words[1], "Gb/sec")) return std::nullopt;
  auto value = parseDouble(words[0]);
  if (!value || *value < 0 || *value > 1e6) return std::nullopt;
  return value;
}

std::string parseStateName(std::string_view text) {
  text = trim(text);
  auto colon = text.find(':');
  if (colon != std::string_view::npos && parseUint(trim(text.substr(0, colon))))
    text = trim(text.substr(colon + 1));
  return std::string(text);
}

std::string parseGidType(std::string_view text) {
  return std::string(trim(text));
}

bool isZeroGid(std::string_view gid) {
  for (char c : trim(gid))
    if (c != '0' && c != ':') return false;
  return true;
}

std::optional<MemlockLimit> parseLimitsMemlock(std::string_view limits) {
  for (auto line : split(limits, '\n')) {
    if (!startsWith(line, "Max locked memory")) continue;
    auto words = splitWhitespace(line.substr(17));
    if (words.empty()) return std::nullopt;
    if (words[0] == "unlimited") return MemlockLimit{true, 0};
    auto bytes = parseUint(words[0]);
    if (!bytes) return std::nullopt;
    return MemlockLimit{false, *bytes};
  }
  return std::nullopt;
}

std::optional<uint64_t> parseMeminfoTotalBytes(std::string_view meminfo) {
  for (auto line : split(meminfo, '\n')) {
    if (!startsWith(line, "MemTotal:")) continue;
    auto words = splitWhitespace(line.substr(9));
    if (words.empty()) return std::nullopt;
    auto value = parseUint(words[0]);
    // The kernel prints kB (KiB); a bare number would be bytes.
    uint64_t unit = words.size() > 1 && words[1] == "kB" ? 1024 : 1;
    if (!value || *value > UINT64_MAX / unit) return std::nullopt;
    return *value * unit;
  }
  return std::nullopt;
}

std::optional<int> parseStateCode(std::string_view text) {
  text = trim(text);
  auto colon = text.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  auto code = parseUint(trim(text.substr(0, colon)));
  if (!code || *code > 255) return std::nullopt;
  return static_cast<int>(*code);
}

std::string_view physStateNameOfCode(int code) {
  // drivers/infiniband/core/sysfs.c, phys_state_to_str().
  static constexpr std::string_view kNames[] = {
      "",        "Sleep", "Polling", "Disabled", "PortConfigurationTraining", "LinkUp", "LinkErrorRecovery",
      "Phy Test"};
  return code >= 0 && code < 8 ? kNames[code] : std::string_view();
}

std::optional<uint64_t> parseStatusCapEff(std::string_view status) {
  for (auto line : split(status, '\n')) {
    if (!startsWith(line, "CapEff:")) continue;
    auto value = trim(line.substr(7));
    if (value.empty() || value.size() > 16) return std::nullopt;
    return parseHex(value);
  }
  return std::nullopt;
}

namespace {

// Fields of a mountinfo line: the mount point is the 5th, super options
// follow the " - fstype source" separator.
struct MountLine {
  std::string_view mount_point;
  std::string_view super_options;
};

std::optional<MountLine> parseMountLine(std::string_view line) {
  auto words = splitWhitespace(line);
  if (words.size() < 7) return std::nullopt;
  size_t dash = 6;
  while (dash < words.size() && words[dash] != "-") ++dash;
  if (dash >= words.size()) return std::nullopt;
  return MountLine{words[4], dash + 3 < words.size() ? words[dash + 3] : std::string_view()};
}

std::optional<uint64_t> parseSize(std::string_view v) {
  if (v.empty()) return std::nullopt;
  uint64_t mult = 1;
  char last = v.back();
  switch (last) {
    case 'k':
    case 'K': mult = 1ull << 10; break;
    case 'm':
    case 'M': mult = 1ull << 20; break;
    case 'g':
    case 'G': mult = 1ull << 30; break;
    case 't':
    case 'T': mult = 1ull << 40; break;
    default: break;
  }
  if (mult != 1) v.remove_suffix(1);
  auto n = parseUint(v);
  if (!n || *n > UINT64_MAX / mult) return std::nullopt;
  return *n * mult;
}

}  // namespace

std::optional<uint64_t> parseMountinfoShmBytes(std::string_view mountinfo) {
  std::optional<uint64_t> found;
  for (auto line : split(mountinfo, '\n')) {
    auto m = parseMountLine(line);
    if (!m || m->mount_point != paths::kDevShm) continue;
    found.reset();  // a later mount over /dev/shm hides earlier ones
    for (auto opt : split(m->super_options, ','))
      if (startsWith(opt, "size=")) found = parseSize(opt.substr(5));
  }
  return found;
}

bool mountinfoHasShm(std::string_view mountinfo) {
  for (auto line : split(mountinfo, '\n')) {
    auto m = parseMountLine(line);
    if (m && m->mount_point == paths::kDevShm) return true;
  }
  return false;
}

std::optional<double> parseLinkSpeedGts(std::string_view text) {
  auto words = splitWhitespace(trim(text));
  if (words.size() < 2 || !startsWith(words[1], "GT/s")) return std::nullopt;
  auto v = parseDouble(words[0]);
  if (!v || *v < 0 || *v > 1e4) return std::nullopt;
  return v;
}

std::optional<std::string> parseDefaultRouteInterface(std::string_view route_table) {
  // "Iface Destination Gateway Flags RefCnt Use Metric Mask MTU Window IRTT",
  // hexadecimal fields; the header line fails the flag parse and is skipped.
  std::optional<std::string> best;
  uint64_t best_metric = 0;
  for (auto line : split(route_table, '\n')) {
    auto f = splitWhitespace(line);
    if (f.size() < 8 || f[1] != "00000000" || f[7] != "00000000") continue;
    auto flags = parseUint(f[3], 16);
    auto metric = parseUint(f[6]);
    if (!flags || !metric || !(*flags & 0x1) || f[0].empty()) continue;
    if (!best || *metric < best_metric) {
      best = std::string(f[0]);
      best_metric = *metric;
    }
  }
  return best;
}

}  // namespace railkit::sys
