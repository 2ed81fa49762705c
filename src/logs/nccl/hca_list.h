#pragma once
// The HCAs of a `NET/IB : Using ...` line, in every format NCCL printed:
// "[0]mlx5_0:1/IB [1]mlx5_1:1/IB ; OOB eth0:..." and, with merged NICs,
// "[0]={[0] mlx5_2:1/RoCE, [1] mlx5_3:1/RoCE} [1]={...} [RO]; OOB ...".
// An HCA is a `name:port/LinkLayer` token before the `;`; the rest is
// punctuation and `[N]` tags. The job's facts and the per-rank view both
// read the list through this.

#include <string_view>

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

}  // namespace railkit::logs::nccl
