#pragma once
// Byte-stream receives over a message transport. The Transport contract is a
// byte stream per direction (tcp's semantics): one send may be received as
// several receives and several sends as one, as long as the bytes line up
// (a ring posts its receive in chunks against one whole-segment send). UCP's
// tag API delivers whole messages, so each peer's receive side keeps this
// bookkeeping: posted receives occupy consecutive ranges of the peer's
// stream; an arriving message (probed, so its length is known) claims the
// next range. When posted receives already cover it, it lands straight in
// them (an iov across the receive buffers: zero-copy where UCP can do it);
// when they do not yet, it lands in a staging buffer that is copied out as
// receives are posted. No UCX types here, so it is unit-tested alone.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

#include "bench/transport.h"

namespace railkit::bench::ucx {

struct Slice {
  RequestId op = 0;
  char* data = nullptr;
  std::size_t bytes = 0;
};

class RecvStream {
 public:
  // A receive of `size` bytes into `data`, next in stream order.
  void post(RequestId id, char* data, std::size_t size);
  // Whether posted receives reach past what messages have claimed.
  bool wantsMessage() const { return posted_end_ > claimed_; }
  // Claims the next `length` bytes of the stream for one message and says
  // where they land: the slices of posted receives covering them, or nullopt
  // when those are not all posted yet (stage the message, then landedStaged).
  std::optional<std::vector<Slice>> claim(std::size_t length, std::uint64_t* start);
  // A message received into the slices claim() gave.
  void landed(const std::vector<Slice>& slices);
  // A message received into a staging buffer; copied out now and as receives come.
  void landedStaged(std::uint64_t start, std::vector<char> data);
  // Receives completed since the last call.
  std::vector<RequestId> takeDone();

 private:
  struct Op {
    RequestId id;
    char* data;
    std::size_t size, done;
    std::uint64_t start;
  };
  struct Staged {
    std::uint64_t start;
    std::vector<char> data;
    std::size_t delivered;
  };
  static void copyOut(Staged& s, Op& op);
  void finish();

  std::vector<Op> open_;  // posted, not complete, in stream order
  std::deque<Staged> staged_;
  std::vector<RequestId> done_;
  std::uint64_t posted_end_ = 0, claimed_ = 0;
};

}  // namespace railkit::bench::ucx
