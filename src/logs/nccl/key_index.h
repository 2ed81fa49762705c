#pragma once
// A flat open-addressing map from a 64-bit hash to a 32-bit value, for the
// per-line lookups of the NCCL analysis (headers seen, a header's per-rank
// entry, a process's network and plugin). A job of thousands of ranks
// interleaves their lines, so every change of rank is a lookup: one probe
// into one array, where a node-based map costs two or three cache misses.
// Memory is bounded: the table holds at most `max_keys` keys.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace railkit::logs::nccl {

class KeyIndex {
 public:
  explicit KeyIndex(size_t max_keys) : max_keys_(max_keys) {}

  // The value of `key`, inserted with value 0 when new; nullptr when the
  // key is new and the table already holds max_keys keys. Key 0 shares the
  // slot of key 1 (the keys are hashes: the one collision in 2^64 costs a
  // merged entry, never a wrong parse).
  uint32_t* get(uint64_t key);
  size_t size() const { return count_; }

  template <class F>
  void forEachValue(F&& f) const {
    for (const Slot& s : slots_)
      if (s.key != 0) f(s.value);
  }

 private:
  struct Slot {
    uint64_t key = 0;  // 0: empty
    uint32_t value = 0;
  };
  void grow();
  size_t max_keys_;
  std::vector<Slot> slots_ = std::vector<Slot>(1024);
  size_t count_ = 0;
};

}  // namespace railkit::logs::nccl
