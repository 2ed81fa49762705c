#include "logs/nccl/line.h"

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

bool mentionsRareWords(std::string_view text) {
  return has(text, "nccl") || has(text, "WARN") || has(text, "SIG") || has(text, "egmentation fault");
}

}  // namespace

bool classifyLine(std::string_view text, NcclLine* out) {
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
      parseHeader(text.substr(0, at), out);
      return true;
    }
    at += 4;
  }
  if (!mentioned && !mentionsRareWords(text)) return false;
  // Old NCCL (before 2.4) printed `host:pid:tid [dev] file:line WARN msg`.
  size_t warn = findIn(text, " WARN ");
  if (warn != std::string_view::npos) {
    NcclLine probe{};
    parseHeader(text.substr(0, warn), &probe);
    if (!probe.host.empty()) {
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
