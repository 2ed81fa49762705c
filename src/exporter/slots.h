#pragma once
// Which connection gives up its slot when the HTTP server is full.
//
// The server holds at most HttpLimits::max_connections connections. A new
// connection is the one most likely to be Prometheus with its whole request
// in the first packet, so at the cap it always gets a slot and an open one
// is closed for it: the one that has gone longest without progress. The
// server stamps a connection's progress when it is accepted, when the first
// byte of a later request arrives (not the bytes after it: a trickle buys no
// time), when a response has gone out, and while a response goes out,
// whenever the socket takes bytes of it. So a client that pipelines requests
// and never reads its responses stalls and ages like one that sent half a
// request and stopped, a reader that keeps reading stays young, and a scrape
// just accepted is the last to go: it keeps its slot until as many newer
// connections as there are slots have arrived after it.
//
// A pure function of what the server records, so the order is unit-tested
// without sockets or clocks.

#include <chrono>
#include <cstdint>

namespace railkit::exporter {

// What the policy knows of one connection.
struct SlotState {
  std::chrono::steady_clock::time_point last_progress;
  uint64_t serial = 0;  // accept order: of two as old, the earlier goes first
};

// True when `a` is to be closed before `b` to make room.
bool evictsBefore(const SlotState& a, const SlotState& b);

}  // namespace railkit::exporter
