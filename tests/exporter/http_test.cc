// parseRequestHead on whole, partial, malformed, oversize and binary heads:
// what the server serves, waits for, refuses (and with which status), and
// rejects as malformed (400).
#include "exporter/http.h"

#include <gtest/gtest.h>

#include <string>

namespace ex = railkit::exporter;

namespace {

constexpr std::string_view kPrometheus =
    "GET /metrics HTTP/1.1\r\n"
    "Host: 10.0.0.7:9877\r\n"
    "User-Agent: Prometheus/2.42.0\r\n"
    "Accept: application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,"
    "text/plain;version=0.0.4;q=0.5,*/*;q=0.1\r\n"
    "Accept-Encoding: gzip\r\n"
    "X-Prometheus-Scrape-Timeout-Seconds: 10\r\n"
    "\r\n";

ex::RequestHead parsed(std::string_view bytes) {
  auto head = ex::parseRequestHead(bytes);
  EXPECT_TRUE(head.has_value()) << head.error().message;
  return head.value_or(ex::RequestHead{});
}

std::string malformedMessage(std::string_view bytes) {
  auto head = ex::parseRequestHead(bytes);
  if (head) return "(parsed)";
  EXPECT_EQ(head.error().code, railkit::ErrorCode::kInvalidInput);
  return head.error().message;
}

TEST(HttpRequestHead, PrometheusScrape) {
  auto head = parsed(kPrometheus);
  EXPECT_TRUE(head.complete);
  EXPECT_EQ(head.refusal, 0);
  EXPECT_EQ(head.size, kPrometheus.size());
  EXPECT_EQ(head.method, "GET");
  EXPECT_EQ(head.path, "/metrics");
  EXPECT_EQ(head.minor_version, 1);
  EXPECT_TRUE(head.keep_alive);
  EXPECT_EQ(head.content_length, 0u);
}

TEST(HttpRequestHead, SizeStopsAtTheBlankLineSoPipelinedBytesStay) {
  std::string two = std::string(kPrometheus) + "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n";
  auto head = parsed(two);
  ASSERT_TRUE(head.complete);
  EXPECT_EQ(head.size, kPrometheus.size());
  auto next = parsed(std::string_view(two).substr(head.size));
  EXPECT_TRUE(next.complete);
  EXPECT_EQ(next.path, "/healthz");
}

TEST(HttpRequestHead, EveryPrefixIsIncompleteAndNeverAnError) {
  for (size_t n = 0; n < kPrometheus.size(); ++n) {
    auto head = ex::parseRequestHead(kPrometheus.substr(0, n));
    ASSERT_TRUE(head.has_value()) << n << ": " << head.error().message;
    EXPECT_FALSE(head->complete) << n;
    EXPECT_EQ(head->refusal, 0) << n;
  }
}

TEST(HttpRequestHead, VersionsAndConnection) {
  auto v10 = parsed("GET /metrics HTTP/1.0\r\n\r\n");
  EXPECT_TRUE(v10.complete);
  EXPECT_EQ(v10.minor_version, 0);
  EXPECT_FALSE(v10.keep_alive) << "HTTP/1.0 closes unless asked";
  EXPECT_TRUE(parsed("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n").keep_alive);
  EXPECT_FALSE(parsed("GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n").keep_alive);
  EXPECT_FALSE(parsed("GET / HTTP/1.1\r\nHost: a\r\nconnection: TE, Close\r\n\r\n").keep_alive);
  // A later 1.x minor is served as 1.1 (RFC 9110 2.5).
  EXPECT_EQ(parsed("GET / HTTP/1.2\r\nHost: a\r\n\r\n").minor_version, 2);
  EXPECT_EQ(parsed("GET / HTTP/2.0\r\nHost: a\r\n\r\n").refusal, 505);
  // 505 is known from the request line alone.
  EXPECT_EQ(parsed("PRI * HTTP/2.0\r\n").refusal, 505);
}

TEST(HttpRequestHead, LineEndingsAndLeadingBlankLines) {
  const std::string bare_lf = "GET /metrics HTTP/1.1\nHost: a\n\n";
  auto bare = parsed(bare_lf);
  EXPECT_TRUE(bare.complete);
  EXPECT_EQ(bare.size, bare_lf.size());
  const std::string blank_first = "\r\n\r\nGET /metrics HTTP/1.1\r\nHost: a\r\n\r\n";
  auto leading = parsed(blank_first);
  EXPECT_TRUE(leading.complete);
  EXPECT_EQ(leading.path, "/metrics");
  EXPECT_EQ(leading.size, blank_first.size());
}

TEST(HttpRequestHead, Targets) {
  EXPECT_EQ(parsed("GET /metrics?collect%5B%5D=cpu HTTP/1.1\r\nHost: a\r\n\r\n").path, "/metrics");
  EXPECT_EQ(parsed("GET http://node:9877/metrics?x HTTP/1.1\r\nHost: a\r\n\r\n").path, "/metrics");
  EXPECT_EQ(parsed("GET HTTP://node:9877 HTTP/1.1\r\nHost: a\r\n\r\n").path, "/");
  EXPECT_EQ(parsed("OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n").path, "*");
  EXPECT_NE(malformedMessage("GET metrics HTTP/1.1\r\nHost: a\r\n\r\n").find("neither a path"),
            std::string::npos);
  EXPECT_NE(malformedMessage("GET ftp://x/ HTTP/1.1\r\nHost: a\r\n\r\n").find("neither a path"),
            std::string::npos);
  EXPECT_NE(malformedMessage("GET http:///x HTTP/1.1\r\nHost: a\r\n\r\n").find("no host"), std::string::npos);
}

TEST(HttpRequestHead, ContentLength) {
  auto head = parsed("POST /metrics HTTP/1.1\r\nHost: a\r\nContent-Length: 12\r\n\r\nhello world!");
  EXPECT_TRUE(head.complete);
  EXPECT_EQ(head.content_length, 12u);
  EXPECT_EQ(
      parsed("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\ncontent-length: 5\r\n\r\n").content_length,
      5u);
  EXPECT_NE(malformedMessage("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n")
                .find("two different Content-Length"),
            std::string::npos);
  for (const char* bad : {"-1", "5, 5", "0x10", "", "1 2", "99999999999999999999"}) {
    std::string request = std::string("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: ") + bad + "\r\n\r\n";
    EXPECT_NE(malformedMessage(request).find("bad Content-Length"), std::string::npos) << bad;
  }
  // Chunked bodies are not read: refused, never misframed.
  EXPECT_EQ(parsed("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n").refusal, 501);
}

TEST(HttpRequestHead, Host) {
  EXPECT_NE(malformedMessage("GET / HTTP/1.1\r\n\r\n").find("without Host"), std::string::npos);
  EXPECT_NE(malformedMessage("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n").find("more than one Host"),
            std::string::npos);
  EXPECT_TRUE(parsed("GET / HTTP/1.0\r\n\r\n").complete) << "HTTP/1.0 needs no Host";
}

TEST(HttpRequestHead, MalformedNamesTheByte) {
  EXPECT_EQ(malformedMessage("GET  /metrics HTTP/1.1\r\n"),
            "HTTP request: a bad byte in the target (byte 4)");
  EXPECT_EQ(malformedMessage("GET /metrics HTTP/1.1\r\nHost : a\r\n\r\n"),
            "HTTP request: a bad byte in a header name (byte 27)");
}

TEST(HttpRequestHead, Malformed) {
  const std::string bad[] = {
      " GET / HTTP/1.1\r\n",                                    // leading space
      "GET /\r\n\r\n",                                          // HTTP/0.9
      "GET / HTTP/1.1 \r\nHost: a\r\n\r\n",                     // trailing space
      "GET / HTTP/1\r\nHost: a\r\n\r\n",                        // short version
      "GET / http/1.1\r\nHost: a\r\n\r\n",                      // the name is case-sensitive
      "GET / HTTP/1.10\r\n",                                    // one digit each
      "G(T / HTTP/1.1\r\n",                                     // not a token
      "GET /a\tb HTTP/1.1\r\n",                                 // tab in the target
      "GET / HTTP/1.1\r\nHost: a\r\n folded\r\n\r\n",           // obsolete line folding
      "GET / HTTP/1.1\r\nHost: a\r\nNoColon\r\n\r\n",           // no colon
      "GET / HTTP/1.1\r\nHost: a\r\n: empty\r\n\r\n",           // empty name
      "GET / HTTP/1.1\r\nHost: a\rX: b\r\n\r\n",                // bare CR
      std::string("GET / HTTP/1.1\r\nHost: a\0b\r\n\r\n", 29),  // NUL in a value
      "GET / HTTP/1.1\r\nX: \x7f\r\n",                          // DEL in a value
      "\r\r\n",                                                 // CR CR
      "\r\n\r\n\r\n\r\n",                                       // blank lines, then... a blank line
  };
  for (const std::string& bytes : bad) {
    if (bytes == "\r\n\r\n\r\n\r\n") {
      // Leading blank lines are skipped, so this is still only a beginning.
      EXPECT_FALSE(parsed(bytes).complete);
      continue;
    }
    EXPECT_FALSE(ex::parseRequestHead(bytes).has_value()) << "accepted: " << ::testing::PrintToString(bytes);
  }
}

TEST(HttpRequestHead, HugeHeadIs431AndNeedsNoMoreBytes) {
  std::string head = "GET /metrics HTTP/1.1\r\nHost: a\r\nX-Pad: ";
  head += std::string(ex::kMaxRequestHead, 'a');
  for (size_t n : {ex::kMaxRequestHead - 1, ex::kMaxRequestHead, head.size()}) {
    auto parsed_head = ex::parseRequestHead(std::string_view(head).substr(0, n));
    ASSERT_TRUE(parsed_head.has_value()) << parsed_head.error().message;
    EXPECT_FALSE(parsed_head->complete);
    EXPECT_EQ(parsed_head->refusal, n >= ex::kMaxRequestHead ? 431 : 0) << n;
  }
  // Many short header lines count the same as one long one.
  std::string many = "GET / HTTP/1.1\r\nHost: a\r\n";
  while (many.size() < ex::kMaxRequestHead) many += "X-A: b\r\n";
  EXPECT_EQ(parsed(many + "\r\n").refusal, 431);
  // A head that ends just inside the cap is served.
  std::string fits = "GET / HTTP/1.1\r\nHost: a\r\nX-Pad: ";
  fits += std::string(ex::kMaxRequestHead - fits.size() - 4, 'b') + "\r\n\r\n";
  ASSERT_EQ(fits.size(), ex::kMaxRequestHead);
  EXPECT_TRUE(parsed(fits).complete);
}

TEST(HttpRequestHead, BinaryIsRejectedFromItsFirstBytes) {
  // A TLS ClientHello, and an HTTP/2 preface minus its request line: a
  // client speaking something else is told at once, not held to the deadline.
  const std::string tls("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", 11);
  EXPECT_FALSE(ex::parseRequestHead(tls).has_value());
  EXPECT_FALSE(ex::parseRequestHead(tls.substr(0, 1)).has_value());
  std::string all_bytes;
  for (int c = 0; c < 256; ++c) all_bytes += static_cast<char>(c);
  EXPECT_FALSE(ex::parseRequestHead(all_bytes).has_value());
  // Bytes past the method are checked as they come too.
  EXPECT_FALSE(ex::parseRequestHead(std::string("GET /\x01", 6)).has_value());
  EXPECT_FALSE(ex::parseRequestHead("GET / HTTQ").has_value());
  EXPECT_FALSE(ex::parseRequestHead(std::string("GET / HTTP/1.1\r\nX: \x01", 20)).has_value());
}

}  // namespace
