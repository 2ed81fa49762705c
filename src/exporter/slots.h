#pragma once
// Which connection gives up its slot when the HTTP server is full.
//
// The server holds at most HttpLimits::max_connections connections. A new
// connection is the one most likely to be Prometheus with its whole request
// in the first packet, so at the cap it always gets a slot and an open one
// is closed for it. Which one is this policy, a pure function of what the
// server knows of each connection, so that it is unit-tested without
// sockets: a client that only waits (half a request, an idle keep-alive,
// the drain after a closing response) goes first, the one that has waited
// longest before the others; a connection being written to goes only when
// no connection waits, and then the one whose socket has taken no bytes for
// the longest (a client that pipelines requests and never reads its
// responses), so a reader that keeps reading keeps its slot.

#include <chrono>

namespace railkit::exporter {

enum class Phase {
  kReading,    // a request is due: since accept, or since its first byte
  kIdle,       // keep-alive, nothing buffered
  kWriting,    // a response is going out; not read meanwhile
  kLingering,  // answered and shut down for writing; drained until EOF
};

// What the policy knows of one connection.
struct SlotState {
  Phase phase = Phase::kReading;
  // Waiting (reading, idle, lingering): when the current wait began.
  // Writing: when the socket last took bytes of the response, or when the
  // response began if it has taken none.
  std::chrono::steady_clock::time_point since;
};

// True when `a` is to be closed before `b` to make room.
bool evictsBefore(const SlotState& a, const SlotState& b);

}  // namespace railkit::exporter
