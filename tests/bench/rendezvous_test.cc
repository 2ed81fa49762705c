#include "bench/rendezvous.h"

#include <gtest/gtest.h>

#include "bench/job_token.h"

namespace railkit::bench {
namespace {

const std::string kNonce(kRendezvousNonceBytes, 'n');
const std::string kToken = "0123456789abcdef-token";

RendezvousHello hello(int rank = 1) {
  return RendezvousHello{kRendezvousVersion, "job-7", rank, 3, "10.0.0.2 5000", ""};
}

TEST(BenchRendezvous, RoundTrip) {
  RendezvousHello h{kRendezvousVersion, "job-7", 2, 3, std::string("10.0.0.2 5000\0x", 15), ""};
  auto parsed = parseRendezvousHello(formatRendezvousHello(h));
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->job_id, "job-7");
  EXPECT_EQ(parsed->rank, 2);
  EXPECT_EQ(parsed->size, 3);
  EXPECT_EQ(parsed->blob, h.blob);
  EXPECT_TRUE(parsed->mac.empty());
  h.mac = helloMac(kToken, kNonce, h);
  parsed = parseRendezvousHello(formatRendezvousHello(h));
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->mac, h.mac);
}

TEST(BenchRendezvous, RejectsForeignAndMalformed) {
  for (const char* bad :
       {"", "GET / HTTP/1.1", "RAILKIT-RDV 3 job 3 3 - -", "RAILKIT-RDV 3 job 0 0 - -",
        "RAILKIT-RDV x job 0 2 - -", "RAILKIT-RDV 3 job 0 2 abc -", "RAILKIT-RDV 3 job 0 2 zz -",
        "RAILKIT-RDV 3  0 2 - -", "RAILKIT-RDV 3 job 0 2 - - extra", "RAILKIT-RDV 3 job 0 2 -",
        "RAILKIT-RDV 3 job 0 2 - abcd", "RAILKIT-RDV 3 job 0 70000 - -", "RAILKIT-RDV 1 job 1 2 -"}) {
    EXPECT_FALSE(parseRendezvousHello(bad).has_value()) << bad;
  }
  EXPECT_TRUE(parseRendezvousHello("RAILKIT-RDV 3 job 1 2 - -").has_value());
  // An old railkit is told apart from garbage.
  auto old = parseRendezvousHello("RAILKIT-RDV 1 job 1 2 -");
  ASSERT_FALSE(old.has_value());
  EXPECT_NE(old.error().message.find("version 1"), std::string::npos) << old.error().message;
  // Version 2 had no gather and an allgather for a barrier: its ranks would
  // read a barrier's "go" as a malformed reply, so they are refused by version.
  auto v2 = parseRendezvousHello("RAILKIT-RDV 2 job 1 2 - -");
  ASSERT_FALSE(v2.has_value());
  EXPECT_NE(v2.error().message.find("version 2"), std::string::npos) << v2.error().message;
}

TEST(BenchRendezvous, Nonce) {
  auto line = formatRendezvousNonce(kNonce);
  auto parsed = parseRendezvousNonce(line);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(*parsed, kNonce);
  for (const char* bad :
       {"", "RAILKIT-RDV-NONCE 2 00", "RAILKIT-RDV-NONCE 1 6e6e6e6e6e6e6e6e6e6e6e6e6e6e6e6e",
        "HELLO 2 6e6e6e6e6e6e6e6e6e6e6e6e6e6e6e6e", "RAILKIT-RDV-NONCE 2 zz6e6e6e6e6e6e6e6e6e6e6e6e6e6e6e"}) {
    EXPECT_FALSE(parseRendezvousNonce(bad).has_value()) << bad;
  }
}

TEST(BenchRendezvous, HmacKnownAnswer) {
  // RFC 4231 test case 2.
  EXPECT_EQ(hexEncode(hmacSha256("Jefe", "what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

TEST(BenchRendezvous, TokenAcceptsOnlyTheRightMac) {
  HelloExpectation expect{"job-7", 3, kToken, kNonce};
  RendezvousHello h = hello();
  h.mac = helloMac(kToken, kNonce, h);
  EXPECT_EQ(refuseHello(h, expect), std::nullopt);

  RendezvousHello bare = hello();
  EXPECT_NE(refuseHello(bare, expect), std::nullopt);  // no mac at all

  RendezvousHello wrong = hello();
  wrong.mac = helloMac("another-token-of-16+", kNonce, wrong);
  EXPECT_EQ(refuseHello(wrong, expect), std::optional<std::string>("wrong job token"));

  // A hello sniffed on another connection (another nonce) cannot be replayed.
  RendezvousHello replay = hello();
  replay.mac = helloMac(kToken, std::string(kRendezvousNonceBytes, 'o'), replay);
  EXPECT_EQ(refuseHello(replay, expect), std::optional<std::string>("wrong job token"));

  // Every field is covered: the same mac on a changed hello fails.
  for (int field = 0; field < 4; ++field) {
    RendezvousHello changed = h;
    if (field == 0) changed.rank = 2;
    if (field == 1) changed.blob = "10.0.0.9 5000";
    if (field == 2) changed.job_id = "job-8";
    if (field == 3) changed.size = 4;
    HelloExpectation e = expect;
    e.job_id = changed.job_id;
    e.size = changed.size;
    EXPECT_NE(refuseHello(changed, e), std::nullopt) << field;
  }
}

TEST(BenchRendezvous, WithoutTokenChecksJobAndShape) {
  HelloExpectation expect{"job-7", 3, "", kNonce};
  EXPECT_EQ(refuseHello(hello(), expect), std::nullopt);
  RendezvousHello other = hello();
  other.job_id = "job-8";
  EXPECT_NE(refuseHello(other, expect), std::nullopt);
  RendezvousHello size = hello();
  size.size = 4;
  EXPECT_NE(refuseHello(size, expect), std::nullopt);
  EXPECT_NE(refuseHello(hello(0), expect), std::nullopt);
  RendezvousHello with_mac = hello();
  with_mac.mac = helloMac(kToken, kNonce, with_mac);
  EXPECT_NE(refuseHello(with_mac, expect), std::nullopt);  // rank 0 lacks the token the rank has
}

TEST(BenchRendezvous, TokenChecks) {
  EXPECT_TRUE(checkJobToken("0123456789abcdef", "t").has_value());
  EXPECT_FALSE(checkJobToken("short", "t").has_value());
  EXPECT_FALSE(checkJobToken("0123456789abcdef 0123", "t").has_value());
  EXPECT_FALSE(checkJobToken(std::string(2000, 'a'), "t").has_value());
  auto a = newJobToken(), b = newJobToken();
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->size(), 64u);
  EXPECT_NE(*a, *b);
  EXPECT_TRUE(checkJobToken(*a, "t").has_value());
  EXPECT_TRUE(sameBytes("abc", "abc"));
  EXPECT_FALSE(sameBytes("abc", "abd"));
  EXPECT_FALSE(sameBytes("abc", "abcd"));
}

TEST(BenchRendezvous, Hex) {
  EXPECT_EQ(hexEncode("\x01\xff"), "01ff");
  EXPECT_EQ(*hexDecode("01ff"), "\x01\xff");
  EXPECT_FALSE(hexDecode("0").has_value());
  EXPECT_FALSE(hexDecode("0G").has_value());
}

}  // namespace
}  // namespace railkit::bench
