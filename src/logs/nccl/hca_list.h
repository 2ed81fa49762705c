#pragma once
// The HCAs of a `NET/IB : Using ...` line, in every format NCCL printed:
// "[0]mlx5_0:1/IB [1]mlx5_1:1/IB ; OOB eth0:..." and, with merged NICs,
// "[0]={[0] mlx5_2:1/RoCE, [1] mlx5_3:1/RoCE} [1]={...} [RO]; OOB ...".
// An HCA is a `name:port/LinkLayer` token before the `;`; the rest is
// punctuation and `[N]` tags. The job's facts and the per-rank view both
// read the list through this.

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

namespace railkit::logs::nccl {

// The list up to its `;`: what every process of a job prints alike (the OOB
// address after it is the process's own).
inline std::string_view hcaListText(std::string_view list) {
  return list.substr(0, list.find(';'));
}

// Calls visit(hca) for each `name:port/LinkLayer` token of the list, in order.
template <typename Visit>
void forEachHca(std::string_view list, Visit&& visit) {
  list = hcaListText(list);
  auto separator = [](char c) { return c == ' ' || c == ',' || c == '{' || c == '}' || c == '='; };
  size_t i = 0;
  while (i < list.size()) {
    while (i < list.size() && separator(list[i])) ++i;
    size_t end = i;
    while (end < list.size() && !separator(list[end])) ++end;
    std::string_view item = list.substr(i, end - i);
    i = end;
    while (!item.empty() && item.front() == '[') {  // "[0]" tags, possibly glued to the name
      size_t close = item.find(']');
      if (close == std::string_view::npos) break;
      item.remove_prefix(close + 1);
    }
    size_t colon = item.find(':'), slash = item.find('/');
    if (colon != std::string_view::npos && slash != std::string_view::npos && colon < slash) visit(item);
  }
}

// What parsing each of the last few lists gave, by the list's text up to
// its `;`: a job's processes mostly print the same list, so the same text
// again is looked up here instead of parsed. Lists longer than kMaxBytes
// are not kept (a log could make every one of them megabytes).
template <typename Value>
class RecentHcaLists {
 public:
  static constexpr std::size_t kMaxBytes = 512;

  // The value remembered for `list`'s text, or nullptr.
  const Value* find(std::string_view list) const {
    list = hcaListText(list);
    for (const auto& e : entries_)
      if (e.kept && e.text.size() == list.size() && e.text == list) return &e.value;
    return nullptr;
  }
  // Keeps `value` for `list`'s text, in place of the oldest.
  void remember(std::string_view list, Value value) {
    list = hcaListText(list);
    if (list.size() > kMaxBytes) return;
    Entry& e = entries_[next_++ % entries_.size()];
    e.text.assign(list);
    e.value = std::move(value);
    e.kept = true;
  }

 private:
  struct Entry {
    std::string text;
    Value value{};
    bool kept = false;
  };
  std::array<Entry, 4> entries_;
  std::size_t next_ = 0;
};

}  // namespace railkit::logs::nccl
