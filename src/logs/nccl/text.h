#pragma once
// Small string helpers for the NCCL log scanner: substring search through
// memmem (vectorised in glibc), digit runs, and bounded copies. Header-only so
// the per-line path inlines them.

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

namespace railkit::logs::nccl {

// memchr (SIMD in glibc) on the needle's first non-space byte, then memcmp:
// much faster than memmem on short lines and short needles.
inline size_t findIn(std::string_view hay, std::string_view needle, size_t from = 0) {
  if (from > hay.size() || needle.size() > hay.size() - from) return std::string_view::npos;
  if (needle.empty()) return from;
  size_t k = 0;
  while (k + 1 < needle.size() && needle[k] == ' ') ++k;
  const char* base = hay.data();
  const char* p = base + from + k;
  const char* last = base + hay.size() - needle.size() + k;  // last anchor position allowed
  while (p <= last) {
    p = static_cast<const char*>(std::memchr(p, needle[k], static_cast<size_t>(last - p) + 1));
    if (p == nullptr) return std::string_view::npos;
    if (std::memcmp(p - k, needle.data(), needle.size()) == 0) return static_cast<size_t>(p - k - base);
    ++p;
  }
  return std::string_view::npos;
}

inline bool has(std::string_view hay, std::string_view needle) { return findIn(hay, needle) != std::string_view::npos; }

inline bool startsWith(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && std::memcmp(s.data(), prefix.data(), prefix.size()) == 0;
}

inline bool isDigit(char c) { return c >= '0' && c <= '9'; }

// The text after `key` up to (not including) the first of `stops` or the end.
inline std::string_view tokenAfter(std::string_view s, std::string_view key, std::string_view stops = " ,;") {
  size_t at = findIn(s, key);
  if (at == std::string_view::npos) return {};
  std::string_view rest = s.substr(at + key.size());
  size_t end = rest.find_first_of(stops);
  return end == std::string_view::npos ? rest : rest.substr(0, end);
}

// The decimal number right after `key` (spaces skipped), or nullopt.
inline std::optional<uint64_t> numberAfter(std::string_view s, std::string_view key) {
  size_t at = findIn(s, key);
  if (at == std::string_view::npos) return std::nullopt;
  size_t i = at + key.size();
  while (i < s.size() && s[i] == ' ') ++i;
  uint64_t value = 0;
  size_t start = i;
  while (i < s.size() && isDigit(s[i]) && i - start < 18) value = value * 10 + static_cast<uint64_t>(s[i++] - '0');
  if (i == start) return std::nullopt;
  return value;
}

// A copy that is valid UTF-8 (JSON output must be): bytes that do not form
// a complete UTF-8 sequence become '?'. Logs are often cut mid-character.
inline std::string validUtf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    bool ok = len > 0 && i + len <= s.size() && !(len == 2 && c < 0xC2);
    for (size_t k = 1; ok && k < len; ++k) ok = (static_cast<unsigned char>(s[i + k]) & 0xC0) == 0x80;
    if (ok && len == 3) {
      unsigned char d = static_cast<unsigned char>(s[i + 1]);
      ok = !(c == 0xE0 && d < 0xA0) && !(c == 0xED && d >= 0xA0);
    }
    if (ok && len == 4) {
      unsigned char d = static_cast<unsigned char>(s[i + 1]);
      ok = c <= 0xF4 && !(c == 0xF0 && d < 0x90) && !(c == 0xF4 && d >= 0x90);
    }
    if (!ok) {
      out.push_back('?');
      ++i;
      continue;
    }
    if (len == 1 && c < 0x20 && c != '\t') out.push_back('?');
    else out.append(s.substr(i, len));
    i += len;
  }
  return out;
}

// A copy of at most `max` bytes, valid UTF-8 (evidence text and details stay bounded).
inline std::string bounded(std::string_view s, size_t max = 400) {
  if (s.size() <= max) return validUtf8(s);
  return validUtf8(s.substr(0, max)) + "...";
}

inline std::string_view trimView(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

}  // namespace railkit::logs::nccl
