#pragma once
// Small string helpers for the NCCL log scanner: substring search (inline,
// vectorised), digit runs, and bounded copies. Header-only so
// the per-line path inlines them.

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace railkit::logs::nccl {

// The first occurrence of `needle` at or after `from`. Inline and vectorised
// on the needle's first and last bytes together (16 start positions per step,
// candidates confirmed with a fixed-size compare once inlined): the lines are
// ~100 bytes and searched a few times each, so a libc call per search (memchr
// or memmem) cost more in call and setup than in scanning.
inline size_t findIn(std::string_view hay, std::string_view needle, size_t from = 0) {
  if (from > hay.size() || needle.size() > hay.size() - from) return std::string_view::npos;
  if (needle.empty()) return from;
  const size_t n = needle.size();
  const char* base = hay.data();
  const size_t last = hay.size() - n;  // last start position allowed
  const char head = needle[0], tail = needle[n - 1];
  size_t i = from;
#if defined(__SSE2__)
  if (last - from >= 15) {
    const __m128i vhead = _mm_set1_epi8(head), vtail = _mm_set1_epi8(tail);
    // Candidates among the 16 starts at `at`: both loads end within the haystack.
    auto candidates = [&](size_t at) {
      __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(base + at));
      __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(base + at + n - 1));
      return static_cast<unsigned>(
          _mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(a, vhead), _mm_cmpeq_epi8(b, vtail))));
    };
    auto confirm = [&](size_t at, unsigned mask) {
      for (; mask != 0; mask &= mask - 1) {
        size_t start = at + static_cast<size_t>(__builtin_ctz(mask));
        if (n <= 2 || std::memcmp(base + start + 1, needle.data() + 1, n - 2) == 0) return start;
      }
      return std::string_view::npos;
    };
    for (; i + 15 <= last; i += 16)
      if (size_t found = confirm(i, candidates(i)); found != std::string_view::npos) return found;
    if (i > last) return std::string_view::npos;
    // The last 16 starts, overlapping the ones already rejected (masked off).
    size_t at = last - 15;
    return confirm(at, candidates(at) & (~0u << (i - at)));
  }
#endif
  for (; i <= last; ++i)
    if (base[i] == head && base[i + n - 1] == tail && std::memcmp(base + i, needle.data(), n) == 0) return i;
  return std::string_view::npos;
}

// Whether `c` occurs in `s`: a libc memchr call costs more than the scan on
// the short lines every NCCL line pays this for.
inline bool containsByte(std::string_view s, char c) {
  const char* p = s.data();
  const char* end = p + s.size();
#if defined(__SSE2__)
  if (end - p >= 16) {
    const __m128i v = _mm_set1_epi8(c);
    auto hit = [&](const char* at) {
      return _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(at)), v)) != 0;
    };
    for (; end - p > 16; p += 16)
      if (hit(p)) return true;
    return hit(end - 16);  // the last 16 bytes, overlapping what was seen
  }
#endif
  for (; p < end; ++p)
    if (*p == c) return true;
  return false;
}

// The index of the last byte of s[0, hi) that is one of `set` (at most 4
// bytes), or npos. Vectorised 16 bytes at a time from the end, because the
// header parse walks back over the host name of every NCCL line.
inline size_t lastOf(std::string_view s, size_t hi, std::string_view set) {
  const char* base = s.data();
#if defined(__SSE2__)
  if (hi >= 16) {
    __m128i v[4];
    for (size_t k = 0; k < 4; ++k) v[k] = _mm_set1_epi8(set[k < set.size() ? k : 0]);
    auto matches = [&](size_t at) {
      __m128i chunk = _mm_loadu_si128(reinterpret_cast<const __m128i*>(base + at));
      __m128i eq = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(chunk, v[0]), _mm_cmpeq_epi8(chunk, v[1])),
                                _mm_or_si128(_mm_cmpeq_epi8(chunk, v[2]), _mm_cmpeq_epi8(chunk, v[3])));
      return static_cast<unsigned>(_mm_movemask_epi8(eq));
    };
    for (; hi >= 16; hi -= 16)
      if (unsigned mask = matches(hi - 16); mask != 0)
        return hi - 16 + static_cast<size_t>(31 - __builtin_clz(mask));
    if (hi == 0) return std::string_view::npos;
    // The first 16 bytes, of which only [0, hi) are still unseen.
    unsigned mask = matches(0) & ((1u << hi) - 1);
    return mask == 0 ? std::string_view::npos : static_cast<size_t>(31 - __builtin_clz(mask));
  }
#endif
  while (hi > 0) {
    --hi;
    for (char c : set)
      if (base[hi] == c) return hi;
  }
  return std::string_view::npos;
}

inline bool has(std::string_view hay, std::string_view needle) {
  return findIn(hay, needle) != std::string_view::npos;
}

// An IPv4-mapped GID (RoCE v2 over IPv4) in each spelling NCCL printed
// over the years: "GID ::ffff:10.0.0.1" (ibvwrap), "localGid ::ffff:..."
// and "remoteGids::ffff:..." (completion errors, 2.19+), "local GID
// ::ffff:..." / "remote GID ::ffff:..." (modify_qp failures, 2.21+):
// "::ffff:" right after "gid" or "gids" in any case, spaces between.
inline bool hasIpv4MappedGid(std::string_view text) {
  auto lower = [](char c) { return static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c); };
  for (size_t at = findIn(text, "::ffff:"); at != std::string_view::npos;
       at = findIn(text, "::ffff:", at + 7)) {
    size_t i = at;
    while (i > 0 && text[i - 1] == ' ') --i;
    if (i > 0 && lower(text[i - 1]) == 's') --i;
    if (i >= 3 && lower(text[i - 3]) == 'g' && lower(text[i - 2]) == 'i' && lower(text[i - 1]) == 'd')
      return true;
  }
  return false;
}

// Google's GPUDirect net plugins by the names they print: FasTrak is
// GPUDirect-TCPXO (A3 Mega); GPUDirectTCPX and its tcpx* functions
// ("tcpxResult_t tcpxCommProgress(...)") are GPUDirect-TCPX (A3 High).
// "TCPXO", "TCPX", or empty for any other text.
inline std::string_view tcpDirectKind(std::string_view text) {
  if (has(text, "FasTrak") || has(text, "fastrak") || has(text, "TCPXO") || has(text, "tcpxo"))
    return "TCPXO";
  if (has(text, "TCPX") || has(text, "tcpx")) return "TCPX";
  return {};
}

inline bool startsWith(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && std::memcmp(s.data(), prefix.data(), prefix.size()) == 0;
}

inline bool isDigit(char c) {
  return c >= '0' && c <= '9';
}

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
  while (i < s.size() && isDigit(s[i]) && i - start < 18)
    value = value * 10 + static_cast<uint64_t>(s[i++] - '0');
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
    if (len == 1 && c < 0x20 && c != '\t')
      out.push_back('?');
    else
      out.append(s.substr(i, len));
    i += len;
  }
  return out;
}

// A copy of at most `max` bytes, valid UTF-8 (evidence text and details stay bounded).
inline std::string bounded(std::string_view s, size_t max = 400) {
  if (s.size() <= max) return validUtf8(s);
  return validUtf8(s.substr(0, max)) + "...";
}

// Mixes `s` into `h` 8 bytes at a time: every NCCL line hashes its header, and
// a byte-at-a-time hash (one dependent multiply per byte) was a visible share
// of a routine line's cost. Only used to skip headers already recorded.
inline uint64_t hashWords(uint64_t h, std::string_view s) {
  constexpr uint64_t kMul = 0x9e3779b97f4a7c15ull;
  const char* p = s.data();
  size_t n = s.size();
  h = (h ^ n) * kMul;
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t word;
    std::memcpy(&word, p, 8);
    h = (h ^ word) * kMul;
    h ^= h >> 32;
  }
  uint64_t rest = 0;
  for (size_t i = 0; i < n; ++i) rest |= uint64_t{static_cast<unsigned char>(p[i])} << (8 * i);
  h = (h ^ rest) * kMul;
  return h ^ (h >> 29);
}

inline std::string_view trimView(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

}  // namespace railkit::logs::nccl
