// The bounded containers behind AnalyzerState (state.h): distinct lists,
// per-process choices, the seen-header table, rank and transport counts.
#include "logs/nccl/state.h"

#include <algorithm>

#include "logs/nccl/rule.h"
#include "logs/nccl/text.h"

namespace railkit::logs::nccl {

bool DistinctList::add(std::string_view value) {
  if (!values_.empty() && values_.back() == value) return false;  // (sanitised values only match clean input)
  // A short list (networks, plugins, versions: a few values taking turns)
  // is compared in place, cheaper than hashing the value; only while every
  // kept value is its original (validUtf8 rewrote none), as the set holds
  // the originals.
  if (values_.size() <= kLinearScan && !rewritten_) {
    for (const auto& v : values_)
      if (v == value) return false;
  } else if (seen_.find(value) != seen_.end()) {
    return false;
  }
  if (values_.size() >= cap_) {
    overflowed_ = true;
    return false;
  }
  seen_.emplace(value);
  values_.push_back(validUtf8(value));
  if (values_.back() != value) rewritten_ = true;
  return true;
}

uint32_t ProcessValues::intern(std::string_view value) {
  if (last_ != 0 && values_[last_ - 1] == value) return last_;
  auto it = index_.find(value);
  if (it == index_.end()) {
    values_.emplace_back(value);
    it = index_.emplace(values_.back(), static_cast<uint32_t>(values_.size())).first;
  }
  return last_ = it->second;
}

void ProcessValues::grow() {
  std::vector<Slot> old(slots_.size() * 2);
  old.swap(slots_);
  size_t mask = slots_.size() - 1;
  for (const Slot& slot : old) {
    if (slot.value == 0) continue;
    size_t at = slot.key & mask;
    while (slots_[at].value != 0) at = (at + 1) & mask;
    slots_[at] = slot;
  }
}

bool ProcessValues::set(uint64_t key, std::string_view value) {
  size_t mask = slots_.size() - 1;
  size_t at = key & mask;
  while (slots_[at].value != 0 && slots_[at].key != key) at = (at + 1) & mask;
  Slot& slot = slots_[at];
  if (slot.value != 0) {
    if (values_[slot.value - 1] == value) return false;
    slot.value = intern(value);
    return true;
  }
  if (count_ >= kMaxProcesses) return false;
  slot.key = key;
  slot.value = intern(value);
  ++count_;
  if (count_ * 2 > slots_.size()) grow();
  return true;
}

std::vector<std::string> ProcessValues::current() const {
  std::vector<bool> held(values_.size());
  for (const Slot& slot : slots_)
    if (slot.value != 0) held[slot.value - 1] = true;
  std::vector<std::string> out;
  for (size_t i = 0; i < values_.size(); ++i)
    if (held[i]) out.push_back(values_[i]);
  return out;
}

void Hits::add(const std::string& file, uint64_t line_number, std::string_view text) {
  if (count == 0 && detail.empty()) {
    // The message words of the line, without the NCCL header.
    size_t at = findIn(text, "NCCL INFO ");
    if (at == std::string_view::npos) at = findIn(text, "NCCL WARN ");
    detail = bounded(trimView(at == std::string_view::npos ? text : text.substr(at + 10)), 200);
  }
  ++count;
  if (evidence.size() < kMaxEvidencePerFinding)
    evidence.push_back(Evidence{file, static_cast<long>(line_number), bounded(trimView(text))});
}

AnalyzerState::AnalyzerState(std::string file_label) : file(std::move(file_label)) {
  rule_hits.resize(allNcclRules().size());
}

void AnalyzerState::addRank(uint64_t rank) {
  constexpr uint64_t kMaxRankIds = uint64_t{1} << 20;
  if (rank >= kMaxRankIds) return;
  if (rank >= ranks_seen.size()) ranks_seen.resize(std::max<size_t>(rank + 1, ranks_seen.size() * 2));
  if (!ranks_seen[rank]) {
    ranks_seen[rank] = true;
    ++ranks_count;
  }
}

bool AnalyzerState::headerSeen(uint64_t hash) {
  if (hash == 0) hash = 1;  // 0 marks an empty slot
  size_t mask = header_seen.size() - 1;
  for (size_t probe = 0; probe < 16; ++probe) {
    uint64_t& slot = header_seen[(hash + probe) & mask];
    if (slot == hash) return true;
    if (slot == 0) {
      if (header_seen_count * 4 >= header_seen.size() * 3) {
        if (header_seen.size() >= kHeaderSeenMaxSlots) return false;  // full: record the slow way
        growHeaderSeen();
        return headerSeen(hash);
      }
      slot = hash;
      ++header_seen_count;
      return false;
    }
  }
  return false;  // a long probe run: record the slow way (correct, only slower)
}

void AnalyzerState::growHeaderSeen() {
  std::vector<uint64_t> old(header_seen.size() * 2, 0);
  old.swap(header_seen);
  size_t mask = header_seen.size() - 1;
  header_seen_count = 0;
  for (uint64_t hash : old) {
    if (hash == 0) continue;
    for (size_t probe = 0; probe < 16; ++probe) {
      uint64_t& slot = header_seen[(hash + probe) & mask];
      if (slot == 0) {
        slot = hash;
        ++header_seen_count;
        break;
      }
    }
  }
}

void AnalyzerState::countTransport(std::string_view name) {
  // A rank's channel lines come in runs over one transport: the one counted
  // last is tried first (entries are distinct, so it is the same entry).
  if (last_transport < transports.size() && transports[last_transport].first == name) {
    ++transports[last_transport].second;
    return;
  }
  for (size_t i = 0; i < transports.size(); ++i)
    if (transports[i].first == name) {
      ++transports[i].second;
      last_transport = i;
      return;
    }
  if (transports.size() < 64) {
    transports.emplace_back(validUtf8(name), 1);
    last_transport = transports.size() - 1;
  }
}

}  // namespace railkit::logs::nccl
