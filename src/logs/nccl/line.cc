#include "logs/nccl/line.h"

#include <cstring>

#include "logs/nccl/crash_line.h"
#include "logs/nccl/text.h"

namespace railkit::logs::nccl {
namespace {

// Finds `host:pid:tid [dev] ` in `pre` (the text before the level word).
void parseHeader(std::string_view pre, NcclLine* out) {
  size_t at = 0;
  while ((at = findIn(pre, " [", at)) != std::string_view::npos) {
    size_t i = at + 2, start = i;
    while (i < pre.size() && isDigit(pre[i])) ++i;
    if (i > start && i < pre.size() && pre[i] == ']') break;
    at += 2;
  }
  if (at == std::string_view::npos) return;
  size_t dev_start = at + 2;
  size_t dev_end = dev_start;  // the digits were checked above: a ']' follows them
  while (pre[dev_end] != ']') ++dev_end;
  // The token before " [" is `[prefix]host:pid:tid` with no space in it:
  // its last two ':' delimit the pid, and the host runs back to the nearest
  // of ":>] " (the end of a launcher prefix or the space before the token).
  size_t c2 = lastOf(pre, at, " :");
  if (c2 == std::string_view::npos || pre[c2] == ' ' || c2 == 0 || pre[c2 - 1] == ' ') return;
  size_t c1 = lastOf(pre, c2, " :");
  if (c1 == std::string_view::npos || pre[c1] == ' ') return;
  std::string_view pid = pre.substr(c1 + 1, c2 - c1 - 1);
  if (pid.empty() || !isDigit(pid.front())) return;
  size_t cut = lastOf(pre, c1, ":>] ");
  size_t host_start = cut == std::string_view::npos ? 0 : cut + 1;
  std::string_view host = pre.substr(host_start, c1 - host_start);
  if (host.empty()) return;
  out->host = host;
  out->pid = pid;
  out->dev = pre.substr(dev_start, dev_end - dev_start);
}

// NCCL before 2.4 printed `host [dev] file.cu:line WARN msg` in some builds
// (no pid:tid): the WARN is NCCL's when a source location ends the text
// before it and a ` [N]` device tag precedes that.
bool oldHeaderNoPid(std::string_view pre, NcclLine* out) {
  size_t loc = lastOf(pre, pre.size(), " ");
  std::string_view where = loc == std::string_view::npos ? pre : pre.substr(loc + 1);
  size_t colon = where.rfind(':');
  if (colon == std::string_view::npos || colon + 1 >= where.size() || !isDigit(where[colon + 1]))
    return false;
  std::string_view file = where.substr(0, colon);
  if (!has(file, ".c") && !has(file, ".h")) return false;
  if (loc == std::string_view::npos) return false;
  std::string_view head = trimView(pre.substr(0, loc));
  if (head.size() < 4 || head.back() != ']') return false;
  size_t open = head.rfind(" [");
  if (open == std::string_view::npos || open == 0 || !isDigit(head[open + 2])) return false;
  size_t start = lastOf(head, open, " >]");
  size_t host_at = start == std::string_view::npos ? 0 : start + 1;
  out->host = head.substr(host_at, open - host_at);
  out->dev = head.substr(open + 2, head.size() - open - 3);
  return !out->host.empty();
}

// Whether a[0, n) == b[0, n): inline, 16 bytes at a time (a libc memcmp
// call per line cost more than the header parse it saves).
bool sameBytes(const char* a, const char* b, size_t n) {
#if defined(__SSE2__)
  if (n >= 16) {
    auto differ = [&](size_t at) {
      __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(a + at));
      __m128i y = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + at));
      return _mm_movemask_epi8(_mm_cmpeq_epi8(x, y)) != 0xffff;
    };
    for (size_t at = 0; at + 16 <= n; at += 16)
      if (differ(at)) return false;
    return !differ(n - 16);  // the last 16 bytes, overlapping what was compared
  }
#endif
  for (size_t i = 0; i < n; ++i)
    if (a[i] != b[i]) return false;
  return true;
}

// The end of the memo's header in `text` (the level word at `at`) when the
// line is from the memo's process and device: the same bytes through
// `pid:`, decimal digits, then the same ` [dev]`; 0 otherwise. parseHeader
// would find the same header there: the bytes before the tid hold no
// ` [digits]` (it found none in them) and digits hold no ' ', ':' or '['.
size_t memoHeaderEnd(std::string_view text, size_t at, const HeaderMemo& memo) {
  size_t tid_at = memo.pid_at + memo.pid_len + 1;
  if (memo.len == 0 || at < memo.len - (memo.tid_end - tid_at) + 1 ||
      !sameBytes(text.data(), memo.bytes, tid_at))
    return 0;
  size_t tid_end = tid_at;
  while (tid_end < at && isDigit(text[tid_end])) ++tid_end;
  size_t tail = memo.len - memo.tid_end;  // ` [dev]`
  if (tid_end == tid_at || tid_end + tail > at ||
      !sameBytes(text.data() + tid_end, memo.bytes + memo.tid_end, tail))
    return 0;
  return tid_end + tail;
}

// The header of `text` (whose level word is at `at`) from the memo when
// the line is from the memo's process and device, else parsed and
// remembered.
void headerWithMemo(std::string_view text, size_t at, NcclLine* out, HeaderMemo* memo) {
  size_t end = memoHeaderEnd(text, at, *memo);
  memo->hit = end != 0;
  if (memo->hit) {
    out->host = text.substr(memo->host_at, memo->host_len);
    out->pid = text.substr(memo->pid_at, memo->pid_len);
    out->dev = text.substr(end - 1 - memo->dev_len, memo->dev_len);
    return;
  }
  parseHeader(text.substr(0, at), out);
  memo->len = 0;
  memo->hash = 0;
  if (out->host.empty()) return;
  end = static_cast<size_t>(out->dev.data() - text.data()) + out->dev.size() + 1;  // through ']'
  std::string_view head = text.substr(0, end);
  if (end > HeaderMemo::kMaxBytes || has(head, "NCCL")) return;
  std::memcpy(memo->bytes, head.data(), end);
  memo->len = end;
  memo->host_at = static_cast<size_t>(out->host.data() - text.data());
  memo->host_len = out->host.size();
  memo->pid_at = static_cast<size_t>(out->pid.data() - text.data());
  memo->pid_len = out->pid.size();
  memo->dev_at = static_cast<size_t>(out->dev.data() - text.data());
  memo->dev_len = out->dev.size();
  memo->tid_end = memo->dev_at - 2;  // before ` [`
  memo->fresh = true;
}

bool tokenStart(std::string_view text, size_t at) {
  return at == 0 || text[at - 1] == ' ' || text[at - 1] == '\t' || text[at - 1] == ']' ||
         text[at - 1] == ':' || text[at - 1] == '>';
}

// A line pasted without NCCL's `NCCL INFO` tag (often without its header
// too) still carries the body NCCL printed. Only bodies specific to NCCL
// are taken, so other programs' lines stay out: a connection `Channel
// 00/0 : 0[0] -> 8[0] [receive] via NET/IB/0/GDRDMA` (or `Ring 00 : ...
// via ...`), a device list `NET/IB : Using [0]mlx5_0:1/IB ...`, and a
// whole line `Using network IBext`. Whatever header stands before the body
// is parsed as usual.
size_t bareBodyStart(std::string_view text) {
  size_t via = findIn(text, " via ");
  if (via != std::string_view::npos) {
    for (std::string_view word : {"Channel ", "Ring "}) {
      size_t at = findIn(text.substr(0, via), word);
      if (at == std::string_view::npos || !tokenStart(text, at) || !isDigit(text[at + word.size()])) continue;
      // NCCL's "N : a[x] -> b[y]" between the word and "via".
      std::string_view ranks = text.substr(at, via - at);
      if (has(ranks, " : ") && has(ranks, " -> ")) return at;
    }
    return std::string_view::npos;
  }
  size_t net = findIn(text, "NET/");
  if (net != std::string_view::npos) {
    size_t name_end = text.find_first_of(" :", net);
    bool named = name_end != std::string_view::npos && name_end > net + 4;
    return tokenStart(text, net) && named && findIn(text, "Using ", net) != std::string_view::npos
               ? net
               : std::string_view::npos;
  }
  // "Using network AWS Libfabric": the whole line, a name of letters, digits, `_` and spaces.
  std::string_view line = trimView(text);
  constexpr std::string_view kUsing = "Using network ";
  if (!startsWith(line, kUsing) || line.size() == kUsing.size() || line.size() > kUsing.size() + 32)
    return std::string_view::npos;
  for (char c : line.substr(kUsing.size()))
    if (!(isDigit(c) || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' || c == ' '))
      return std::string_view::npos;
  return static_cast<size_t>(line.data() - text.data());
}

bool bareInfoLine(std::string_view text, NcclLine* out) {
  size_t start = bareBodyStart(text);
  if (start == std::string_view::npos) return false;
  out->level = LineLevel::kInfo;
  out->body = trimView(text.substr(start));
  parseHeader(text.substr(0, start), out);
  return true;
}

// A crash report (crash_line.h) is read from whatever printed it: those
// words count too.
bool mentionsRareWords(std::string_view text) {
  return has(text, "nccl") || has(text, "WARN") || has(text, "SIG") || mentionsCrash(text);
}

}  // namespace

bool classifyLine(std::string_view text, NcclLine* out, HeaderMemo* memo) {
  if (memo) memo->hit = memo->fresh = false;
  // Field by field, each a plain store: a whole-struct reset compiles to
  // `rep stos`, and a chained assignment reads back what it just stored (a
  // store-forwarding stall); both showed on every line.
  out->level = LineLevel::kNone;
  out->text = text;
  out->body = std::string_view();
  out->host = std::string_view();
  out->pid = std::string_view();
  out->dev = std::string_view();
  size_t at = 0;
  bool mentioned = false;
  for (int tries = 0; tries < 4; ++tries) {
    at = findIn(text, "NCCL", at);
    if (at == std::string_view::npos) break;
    mentioned = true;
    std::string_view rest = text.substr(at + 4);
    if (startsWith(rest, " INFO") || startsWith(rest, " WARN")) {
      out->level = rest[1] == 'I' ? LineLevel::kInfo : LineLevel::kWarn;
      out->body = trimView(rest.substr(5));
      if (memo)
        headerWithMemo(text, at, out, memo);
      else
        parseHeader(text.substr(0, at), out);
      return true;
    }
    at += 4;
  }
  // Old NCCL (before 2.4) printed `host:pid:tid [dev] INFO msg` without the
  // word NCCL, and `host:pid:tid [dev] file:line WARN msg`.
  size_t info = mentioned ? std::string_view::npos : findIn(text, "] INFO ");
  if (info == std::string_view::npos && bareInfoLine(text, out)) return true;
  if (!mentioned && info == std::string_view::npos && !mentionsRareWords(text)) return false;
  if (info != std::string_view::npos) {
    NcclLine probe{};
    parseHeader(text.substr(0, info + 1), &probe);
    if (!probe.host.empty()) {
      *out = probe;
      out->text = text;
      out->level = LineLevel::kInfo;
      out->body = trimView(text.substr(info + 7));
      return true;
    }
    // Another program's `[...] INFO` line.
    if (!mentionsRareWords(text)) return false;
  }
  size_t warn = findIn(text, " WARN ");
  if (warn != std::string_view::npos) {
    NcclLine probe{};
    parseHeader(text.substr(0, warn), &probe);
    if (!probe.host.empty() || oldHeaderNoPid(text.substr(0, warn), &probe)) {
      *out = probe;
      out->text = text;
      out->level = LineLevel::kWarn;
      out->body = trimView(text.substr(warn + 6));
      return true;
    }
  }
  out->level = LineLevel::kOther;
  out->body = text;
  return true;
}

}  // namespace railkit::logs::nccl
