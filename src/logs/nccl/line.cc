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
  size_t dev_end = pre.find(']', dev_start);
  size_t tok = pre.rfind(' ', at == 0 ? 0 : at - 1);
  tok = (tok == std::string_view::npos || tok >= at) ? 0 : tok + 1;
  std::string_view token = pre.substr(tok, at - tok);  // [prefix]host:pid:tid
  size_t c2 = token.rfind(':');
  if (c2 == std::string_view::npos || c2 == 0) return;
  size_t c1 = token.rfind(':', c2 - 1);
  if (c1 == std::string_view::npos) return;
  std::string_view pid = token.substr(c1 + 1, c2 - c1 - 1);
  if (pid.empty() || !isDigit(pid.front())) return;
  std::string_view head = token.substr(0, c1);
  size_t cut = head.find_last_of(":>] ");
  std::string_view host = cut == std::string_view::npos ? head : head.substr(cut + 1);
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
  *out = NcclLine{};
  out->text = text;
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
    NcclLine probe;
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
