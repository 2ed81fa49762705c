// The bounded containers behind AnalyzerState (state.h): distinct lists,
// per-process choices, the seen-header table, rank and transport counts.
#include "logs/nccl/state.h"

#include <algorithm>

#include "logs/nccl/rule.h"
#include "logs/nccl/text.h"

namespace railkit::logs::nccl {

bool DistinctList::add(std::string_view value) {
  // Full: a value is either held already or not kept; nothing left to learn
  // (a job past the cap would otherwise pay a set lookup on every header).
  if (overflowed_) return false;
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

bool ProcessValues::set(uint64_t key, std::string_view value) {
  uint32_t* slot = slots_.get(key);
  if (slot == nullptr) return false;  // kMaxProcesses processes held: a new one is not recorded
  if (*slot != 0 && values_[*slot - 1] == value) return false;
  *slot = intern(value);
  return true;
}

std::vector<std::string> ProcessValues::current() const {
  std::vector<bool> held(values_.size());
  slots_.forEachValue([&](uint32_t value) {
    if (value != 0) held[value - 1] = true;
  });
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
