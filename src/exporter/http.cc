#include "exporter/http.h"

#include <string>

namespace railkit::exporter {
namespace {

// RFC 9110 5.6.2: the bytes of a method or a header name.
bool isTokenChar(unsigned char c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(static_cast<char>(c)) != std::string_view::npos;
}

// A request target is visible ASCII: no spaces, no control bytes.
bool isTargetChar(unsigned char c) {
  return c >= 0x21 && c <= 0x7e;
}

// RFC 9110 5.5: visible ASCII, obs-text (0x80-0xff), space and tab; never a
// control byte (a NUL or a lone CR in a value is how requests get smuggled).
bool isValueChar(unsigned char c) {
  return c == ' ' || c == '\t' || (c >= 0x21 && c != 0x7f);
}

bool equalsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

std::string_view trimWhitespace(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

tl::unexpected<Error> malformed(const std::string& what, size_t offset) {
  return makeError(ErrorCode::kInvalidInput,
                   "HTTP request: " + what + " (byte " + std::to_string(offset) + ")");
}

// One line of the head; `complete` is false for the last, unterminated one,
// which is checked only as far as it goes.
struct Line {
  std::string_view text;  // without its CRLF or LF
  size_t offset = 0;      // of its first byte in the input
  bool complete = false;
};

// The path of a target: origin-form as it is, absolute-form (which a server
// must accept, RFC 9112 3.2.2) reduced to its path; the query is dropped
// because routing does not look at it.
Result<std::string_view> targetPath(std::string_view target, size_t offset) {
  if (target == "*") return target;
  if (target.front() != '/') {
    size_t scheme = target.find("://");
    if (scheme == std::string_view::npos || !(equalsIgnoreCase(target.substr(0, scheme), "http") ||
                                              equalsIgnoreCase(target.substr(0, scheme), "https")))
      return malformed("the target is neither a path nor an http URL", offset);
    target.remove_prefix(scheme + 3);
    size_t path = target.find_first_of("/?");
    if (path == 0) return malformed("the target URL has no host", offset);
    target = path == std::string_view::npos ? std::string_view("/") : target.substr(path);
    if (target.front() == '?') return std::string_view("/");
  }
  return target.substr(0, target.find('?'));
}

// "METHOD SP TARGET SP HTTP/D.D", strictly: a lenient split on any
// whitespace is how a proxy and a server come to disagree on a request.
Status parseRequestLine(const Line& line, RequestHead& head) {
  std::string_view text = line.text;
  size_t i = 0;
  while (i < text.size() && isTokenChar(static_cast<unsigned char>(text[i]))) ++i;
  if (i == text.size())
    return line.complete ? malformed("the request line has no target", line.offset + i) : okStatus();
  if (text[i] != ' ' || i == 0) return malformed("the method is not a token", line.offset + i);
  head.method = text.substr(0, i);
  size_t target_begin = ++i;
  while (i < text.size() && isTargetChar(static_cast<unsigned char>(text[i]))) ++i;
  if (i == text.size())
    return line.complete ? malformed("the request line has no HTTP version", line.offset + i) : okStatus();
  if (text[i] != ' ' || i == target_begin) return malformed("a bad byte in the target", line.offset + i);
  std::string_view target = text.substr(target_begin, i - target_begin);
  size_t version_begin = ++i;
  std::string_view version = text.substr(version_begin);
  constexpr std::string_view kPrefix = "HTTP/";
  size_t common = std::min(version.size(), kPrefix.size());
  if (version.substr(0, common) != kPrefix.substr(0, common))
    return malformed("the version is not HTTP/D.D", line.offset + version_begin);
  auto digit = [&](size_t k) { return version.size() > k && version[k] >= '0' && version[k] <= '9'; };
  bool shape_so_far = (version.size() <= 5 || digit(5)) && (version.size() <= 6 || version[6] == '.') &&
                      (version.size() <= 7 || digit(7)) && version.size() <= 8;
  if (!shape_so_far) return malformed("the version is not HTTP/D.D", line.offset + version_begin);
  if (!line.complete) return okStatus();
  if (version.size() != 8) return malformed("the version is not HTTP/D.D", line.offset + version_begin);
  auto path = targetPath(target, line.offset + target_begin);
  if (!path) return tl::unexpected(path.error());
  head.path = *path;
  if (version[5] != '1') {
    head.refusal = 505;
    return okStatus();
  }
  head.minor_version = version[7] - '0';
  return okStatus();
}

// The header fields the server acts on, gathered over the lines.
struct Fields {
  int hosts = 0;
  bool has_length = false;
  bool transfer_encoding = false;
  bool close = false;
  bool keep_alive = false;
};

Status parseField(const Line& line, RequestHead& head, Fields& fields) {
  std::string_view text = line.text;
  if (text.front() == ' ' || text.front() == '\t')
    return malformed("a folded header line (obsolete line folding)", line.offset);
  size_t i = 0;
  while (i < text.size() && isTokenChar(static_cast<unsigned char>(text[i]))) ++i;
  if (i == text.size())
    return line.complete ? malformed("a header line without ':'", line.offset + i) : okStatus();
  if (text[i] != ':' || i == 0) return malformed("a bad byte in a header name", line.offset + i);
  std::string_view name = text.substr(0, i);
  for (size_t k = i + 1; k < text.size(); ++k)
    if (!isValueChar(static_cast<unsigned char>(text[k])))
      return malformed("a control byte in a header value", line.offset + k);
  if (!line.complete) return okStatus();
  std::string_view value = trimWhitespace(text.substr(i + 1));
  if (equalsIgnoreCase(name, "host")) {
    ++fields.hosts;
  } else if (equalsIgnoreCase(name, "content-length")) {
    // Digits only, and a second Content-Length must agree: two lengths for
    // one body are how a request is smuggled past a proxy.
    if (value.empty() || value.size() > 18) return malformed("a bad Content-Length", line.offset);
    uint64_t length = 0;
    for (char c : value) {
      if (c < '0' || c > '9') return malformed("a bad Content-Length", line.offset);
      length = length * 10 + static_cast<uint64_t>(c - '0');
    }
    if (fields.has_length && length != head.content_length)
      return malformed("two different Content-Length values", line.offset);
    fields.has_length = true;
    head.content_length = length;
  } else if (equalsIgnoreCase(name, "transfer-encoding")) {
    fields.transfer_encoding = true;
  } else if (equalsIgnoreCase(name, "connection")) {
    while (!value.empty()) {
      size_t comma = value.find(',');
      std::string_view option = trimWhitespace(value.substr(0, comma));
      if (equalsIgnoreCase(option, "close")) fields.close = true;
      if (equalsIgnoreCase(option, "keep-alive")) fields.keep_alive = true;
      value = comma == std::string_view::npos ? std::string_view() : value.substr(comma + 1);
    }
  }
  return okStatus();
}

}  // namespace

Result<RequestHead> parseRequestHead(std::string_view bytes) {
  RequestHead head;
  std::string_view view = bytes.substr(0, kMaxRequestHead);
  size_t pos = 0;
  // RFC 9112 2.2: empty lines before a request line are ignored (a client
  // may send CRLF after a body).
  while (pos < view.size() && (view[pos] == '\n' || view[pos] == '\r')) {
    if (view[pos] == '\r' && pos + 1 < view.size() && view[pos + 1] != '\n')
      return malformed("a CR without LF", pos);
    ++pos;
  }
  Fields fields;
  bool first = true;
  while (pos < view.size()) {
    size_t end = view.find('\n', pos);
    Line line;
    line.offset = pos;
    line.complete = end != std::string_view::npos;
    line.text = view.substr(pos, line.complete ? end - pos : std::string_view::npos);
    // A line ends in CRLF or a bare LF (RFC 9112 2.2); a CR anywhere else
    // is refused. An unterminated line may end in the CR of its CRLF.
    if (line.complete && !line.text.empty() && line.text.back() == '\r') line.text.remove_suffix(1);
    if (!line.complete && !line.text.empty() && line.text.back() == '\r') line.text.remove_suffix(1);
    size_t cr = line.text.find('\r');
    if (cr != std::string_view::npos) return malformed("a CR without LF", pos + cr);
    if (line.complete && line.text.empty() && !first) {
      head.size = end + 1;
      head.complete = true;
      break;
    }
    if (line.complete && line.text.empty()) return malformed("an empty request line", pos);
    Status parsed = first ? parseRequestLine(line, head)
                          : (line.text.empty() ? okStatus() : parseField(line, head, fields));
    if (!parsed) return tl::unexpected(parsed.error());
    if (head.refusal != 0) return head;
    if (!line.complete) break;
    first = false;
    pos = end + 1;
  }
  if (!head.complete) {
    if (bytes.size() >= kMaxRequestHead) head.refusal = 431;
    return head;
  }
  if (head.minor_version >= 1 && fields.hosts == 0) return malformed("an HTTP/1.1 request without Host", 0);
  if (fields.hosts > 1) return malformed("more than one Host", 0);
  if (fields.transfer_encoding) head.refusal = 501;
  head.keep_alive = !fields.close && (head.minor_version >= 1 || fields.keep_alive);
  return head;
}

}  // namespace railkit::exporter
