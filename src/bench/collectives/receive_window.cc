#include "bench/collectives/collective.h"

namespace railkit::bench {

ReceiveWindow::ReceiveWindow(Transport& t, int peer, std::size_t units, std::size_t depth, Place place)
    : t_(t),
      peer_(peer),
      units_(units),
      depth_(std::max<std::size_t>(1, depth)),
      place_(std::move(place)),
      ids_(units, 0) {}

Status ReceiveWindow::start() {
  while (posted_ < std::min(units_, depth_)) {
    if (auto s = advance(); !s) return s;
  }
  return okStatus();
}

Status ReceiveWindow::wait(std::size_t unit) {
  return t_.wait(ids_[unit]);
}

Status ReceiveWindow::advance() {
  if (posted_ >= units_) return okStatus();
  auto [dst, bytes] = place_(posted_);
  auto id = t_.postRecv(peer_, dst, bytes);
  if (!id) return tl::unexpected(id.error());
  ids_[posted_++] = *id;
  return okStatus();
}

}  // namespace railkit::bench
