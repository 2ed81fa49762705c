#include "bench/ucx/ucx_stream.h"

#include <algorithm>
#include <cstring>

namespace railkit::bench::ucx {

void RecvStream::post(RequestId id, char* data, std::size_t size) {
  open_.push_back(Op{id, data, size, 0, posted_end_});
  posted_end_ += size;
  for (auto& s : staged_) copyOut(s, open_.back());
  finish();
}

std::optional<std::vector<Slice>> RecvStream::claim(std::size_t length, std::uint64_t* start) {
  *start = claimed_;
  std::uint64_t end = claimed_ + length;
  claimed_ = end;
  if (end > posted_end_) return std::nullopt;
  std::vector<Slice> slices;
  for (auto& op : open_) {
    std::uint64_t b = std::max(op.start, *start), e = std::min(op.start + op.size, end);
    if (b < e) slices.push_back(Slice{op.id, op.data + (b - op.start), static_cast<std::size_t>(e - b)});
  }
  return slices;
}

void RecvStream::landed(const std::vector<Slice>& slices) {
  for (const auto& slice : slices) {
    for (auto& op : open_) {
      if (op.id == slice.op) op.done += slice.bytes;
    }
  }
  finish();
}

void RecvStream::landedStaged(std::uint64_t start, std::vector<char> data) {
  staged_.push_back(Staged{start, std::move(data), 0});
  for (auto& op : open_) copyOut(staged_.back(), op);
  finish();
}

std::vector<RequestId> RecvStream::takeDone() {
  std::vector<RequestId> out;
  out.swap(done_);
  return out;
}

void RecvStream::copyOut(Staged& s, Op& op) {
  std::uint64_t b = std::max(op.start, s.start);
  std::uint64_t e = std::min(op.start + op.size, s.start + s.data.size());
  if (b >= e) return;
  std::memcpy(op.data + (b - op.start), s.data.data() + (b - s.start), e - b);
  op.done += e - b;
  s.delivered += e - b;
}

void RecvStream::finish() {
  auto complete = [&](const Op& op) {
    if (op.done < op.size) return false;
    done_.push_back(op.id);
    return true;
  };
  open_.erase(std::remove_if(open_.begin(), open_.end(), complete), open_.end());
  while (!staged_.empty() && staged_.front().delivered == staged_.front().data.size()) staged_.pop_front();
}

}  // namespace railkit::bench::ucx
