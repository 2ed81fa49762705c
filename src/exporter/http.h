#pragma once
// The HTTP/1.x request head, parsed from the bytes a connection has sent so
// far. A pure function over bytes, so every shape of request (partial,
// malformed, oversize, binary) is a unit test and a fuzz input, and the
// server keeps no parser state between reads: it calls it again on the
// grown buffer (a head is at most kMaxRequestHead bytes, so this is cheap).

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/result.h"

namespace railkit::exporter {

// Prometheus sends ~300 bytes; a bearer token adds ~1-2 KiB. 8 KiB is the
// line limit nginx and Apache apply by default.
inline constexpr size_t kMaxRequestHead = 8 * 1024;

struct RequestHead {
  // False: every byte so far can begin a valid head; read more.
  bool complete = false;
  // A status to answer instead of serving, for heads that are well formed
  // but not served: 431 (longer than kMaxRequestHead), 505 (not HTTP/1.x),
  // 501 (a Transfer-Encoding: the exporter reads no chunked bodies). May be
  // set before the head is complete (431); the connection closes after it.
  int refusal = 0;
  // Bytes the head took, the blank line included (the body, if any,
  // follows). Set when complete.
  size_t size = 0;
  // Views into the parsed bytes (or, for the path "/" of "http://host", a
  // literal): valid while those bytes are.
  std::string_view method;
  std::string_view path;  // of the target, without the query (absolute-form reduced to its path)
  int minor_version = 1;  // HTTP/1.<minor_version>
  // HTTP/1.1 unless "Connection: close"; HTTP/1.0 only with "Connection: keep-alive".
  bool keep_alive = true;
  uint64_t content_length = 0;
};

// kInvalidInput for bytes that are not, and cannot become, an HTTP/1.x
// request head (the server answers 400 and closes), naming what and where.
Result<RequestHead> parseRequestHead(std::string_view bytes);

}  // namespace railkit::exporter
