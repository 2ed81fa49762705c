#include "core/strings.h"

#include <gtest/gtest.h>

#include "core/environment.h"

namespace railkit {
namespace {

TEST(Strings, Trim) {
  EXPECT_EQ(trim("  a b \n"), "a b");
  EXPECT_EQ(trim(""), "");
}

TEST(Strings, SplitKeepsEmptyFields) {
  auto parts = split("a,,b", ',');
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[1], "");
}

TEST(Strings, SplitWhitespaceDropsEmpty) {
  auto parts = splitWhitespace("Max locked memory     8388608   unlimited  bytes");
  ASSERT_EQ(parts.size(), 6u);
  EXPECT_EQ(parts[3], "8388608");
}

TEST(Strings, ParseNumbersStrictly) {
  EXPECT_EQ(parseUint("42"), 42u);
  EXPECT_FALSE(parseUint("42x").has_value());
  EXPECT_FALSE(parseUint("-1").has_value());
  EXPECT_FALSE(parseUint("99999999999999999999999").has_value());
  EXPECT_EQ(parseHex("0x000000a1c20423fb"), 0xa1c20423fbu);
  EXPECT_EQ(parseInt("-1"), -1);
  EXPECT_DOUBLE_EQ(*parseDouble("16.0"), 16.0);
  EXPECT_FALSE(parseDouble("16 GT/s").has_value());
}

TEST(Environment, ParsesProcEnviron) {
  std::string data("NCCL_DEBUG=INFO\0NOEQUALS\0UCX_TLS=rc,cuda\0=bad\0", 45);
  auto env = parseEnviron(data);
  EXPECT_EQ(env.size(), 2u);
  EXPECT_EQ(lookup(env, "UCX_TLS"), "rc,cuda");
  EXPECT_FALSE(lookup(env, "NOEQUALS").has_value());
}

TEST(Strings, ShellQuoteIsOneWord) {
  EXPECT_EQ(shellQuote("=mlx5_0:1"), "'=mlx5_0:1'");
  EXPECT_EQ(shellQuote("a'b"), "'a'\\''b'");
  EXPECT_EQ(shellQuote(""), "''");
  EXPECT_EQ(shellQuote("$(reboot) `x`; y"), "'$(reboot) `x`; y'");
}

TEST(Strings, ShellWordQuotesOnlyWhatNeedsIt) {
  EXPECT_EQ(shellWord("NCCL_IB_HCA==mlx5_0:1,mlx5_1"), "NCCL_IB_HCA==mlx5_0:1,mlx5_1");
  EXPECT_EQ(shellWord("a b"), "'a b'");
  EXPECT_EQ(shellWord("x=$(id)"), "'x=$(id)'");
  EXPECT_EQ(shellWord("it's"), "'it'\\''s'");
  EXPECT_EQ(shellWord(""), "''");
}

}  // namespace
}  // namespace railkit
