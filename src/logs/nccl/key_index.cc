#include "logs/nccl/key_index.h"

namespace railkit::logs::nccl {
namespace {

// The analyser's keys are hashes with bit 0 forced on (0 marks an empty
// slot), so the home slot skips that bit: with `key & mask` only odd slots
// were ever home. (Measured: no change in `logs` time, whose lookups cost
// cache misses, not probe length; the table is simply used as designed.)
size_t home(uint64_t key, size_t mask) {
  return static_cast<size_t>(key >> 1) & mask;
}

}  // namespace

uint32_t* KeyIndex::get(uint64_t key) {
  if (key == 0) key = 1;
  for (;;) {
    size_t mask = slots_.size() - 1;
    size_t at = home(key, mask);
    while (slots_[at].key != 0 && slots_[at].key != key) at = (at + 1) & mask;
    Slot& slot = slots_[at];
    if (slot.key == key) return &slot.value;
    if (count_ >= max_keys_) return nullptr;
    // At most 3/4 full: probe runs stay short.
    if ((count_ + 1) * 4 <= slots_.size() * 3) {
      slot.key = key;
      ++count_;
      return &slot.value;
    }
    grow();
  }
}

void KeyIndex::grow() {
  std::vector<Slot> old(slots_.size() * 2);
  old.swap(slots_);
  size_t mask = slots_.size() - 1;
  for (const Slot& s : old) {
    if (s.key == 0) continue;
    size_t at = home(s.key, mask);
    while (slots_[at].key != 0) at = (at + 1) & mask;
    slots_[at] = s;
  }
}

}  // namespace railkit::logs::nccl
