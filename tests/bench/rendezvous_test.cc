#include "bench/rendezvous.h"

#include <gtest/gtest.h>

namespace railkit::bench {
namespace {

TEST(BenchRendezvous, RoundTrip) {
  RendezvousHello h{kRendezvousVersion, "job-7", 2, 3, std::string("10.0.0.2 5000\0x", 15)};
  auto parsed = parseRendezvousHello(formatRendezvousHello(h));
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->job_id, "job-7");
  EXPECT_EQ(parsed->rank, 2);
  EXPECT_EQ(parsed->size, 3);
  EXPECT_EQ(parsed->blob, h.blob);
}

TEST(BenchRendezvous, RejectsForeignAndMalformed) {
  for (const char* bad : {"", "GET / HTTP/1.1", "RAILKIT-RDV 1 job 3 3 -", "RAILKIT-RDV 1 job 0 0 -",
                          "RAILKIT-RDV x job 0 2 -", "RAILKIT-RDV 1 job 0 2 abc", "RAILKIT-RDV 1 job 0 2 zz",
                          "RAILKIT-RDV 1  0 2 -", "RAILKIT-RDV 1 job 0 2 - extra"}) {
    EXPECT_FALSE(parseRendezvousHello(bad).has_value()) << bad;
  }
  EXPECT_TRUE(parseRendezvousHello("RAILKIT-RDV 1 job 1 2 -").has_value());
}

TEST(BenchRendezvous, Hex) {
  EXPECT_EQ(hexEncode("\x01\xff"), "01ff");
  EXPECT_EQ(*hexDecode("01ff"), "\x01\xff");
  EXPECT_FALSE(hexDecode("0").has_value());
  EXPECT_FALSE(hexDecode("0G").has_value());
}

}  // namespace
}  // namespace railkit::bench
