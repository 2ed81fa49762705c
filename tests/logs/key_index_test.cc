// The flat hash -> value table behind the NCCL analysis' per-line lookups
// (logs/nccl/key_index.h): values survive growth, the key cap holds, and a
// key already in is found even when the table is full.
#include "logs/nccl/key_index.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace railkit::logs::nccl {
namespace {

// Keys spread like hashes, and keys that share their low bits (long
// probe runs in a small table).
uint64_t spreadKey(uint64_t i) {
  return (i + 1) * 0x9e3779b97f4a7c15ull;
}
uint64_t clusteredKey(uint64_t i) {
  return (i + 1) << 20;
}
// The analyser's own shape: a hash with bit 0 forced on.
uint64_t oddKey(uint64_t i) {
  return spreadKey(i) | 1;
}

TEST(KeyIndex, ValuesSurviveGrowthAndTheCapHolds) {
  for (auto key : {spreadKey, clusteredKey, oddKey}) {
    constexpr size_t kMax = 5000;  // past several doublings of the first 1024 slots
    KeyIndex index(kMax);
    for (uint64_t i = 0; i < kMax; ++i) {
      uint32_t* v = index.get(key(i));
      ASSERT_NE(v, nullptr) << i;
      EXPECT_EQ(*v, 0u) << "a new key starts at 0";
      *v = static_cast<uint32_t>(i + 7);
    }
    EXPECT_EQ(index.size(), kMax);
    EXPECT_EQ(index.get(key(kMax)), nullptr) << "a new key past the cap is refused";
    EXPECT_EQ(index.size(), kMax);
    for (uint64_t i = 0; i < kMax; ++i) {
      uint32_t* v = index.get(key(i));
      ASSERT_NE(v, nullptr) << "a key already in is found when full";
      EXPECT_EQ(*v, i + 7) << i;
    }
    uint64_t sum = 0, count = 0;
    index.forEachValue([&](uint32_t v) { sum += v, ++count; });
    EXPECT_EQ(count, kMax);
    EXPECT_EQ(sum, kMax * (kMax - 1) / 2 + 7 * kMax);
  }
}

TEST(KeyIndex, KeyZeroIsAKey) {
  KeyIndex index(4);
  *index.get(0) = 3;
  EXPECT_EQ(*index.get(0), 3u);  // 0 marks an empty slot inside; the caller still finds its key
  EXPECT_EQ(index.size(), 1u);
}

}  // namespace
}  // namespace railkit::logs::nccl
