#pragma once
// Ctrl-C and SIGTERM while railkit holds something it must clean up.
//
// Some commands create things that must not outlive them: the directory a
// .tar.gz --root is extracted into (railkit-root-*), the staging tree and the
// temporary archive of `snapshot` (railkit-snap-*, .NAME.tmp-*). If SIGINT or
// SIGTERM killed the process there, they would be left behind. So:
//
// - main() calls installInterruptHandlers() once. While no CleanupScope is
//   alive, a signal does what it always did: the handler restores the default
//   action and re-raises it at once, so every other command stops on Ctrl-C
//   as before.
// - Code that owns temporary files holds a CleanupScope for their whole life.
//   While one is alive, a signal only sets a flag. Long loops (extraction per
//   entry, snapshot writing) call checkInterrupt() and return its error; the
//   error unwinds, destructors remove what was made, and when the last
//   CleanupScope goes away it re-raises the signal with the default action,
//   so the process ends as a killed process does (shell status 130 / 143).
//
// The flag, the pending signal and the scope count are process-wide: signal
// handlers can reach nothing else. This is the one documented exception to
// "no global mutable state"; it holds only lock-free atomics that a handler
// may touch.

#include "core/result.h"

namespace railkit {

// SIGINT, SIGTERM and SIGHUP get the deferring handler. Idempotent.
void installInterruptHandlers();

// True once one of those signals arrived while a CleanupScope was alive.
bool interruptRequested();

// okStatus(), or an error naming the signal ("interrupted by SIGINT") for
// `what` ("extracting snapshot.tar.gz") once a signal is pending.
Status checkInterrupt(const char* what);

// Re-raises a pending signal with its default action (the process ends).
// Does nothing when none is pending or a CleanupScope is still alive.
void raisePendingInterrupt();

class CleanupScope {
 public:
  CleanupScope();
  ~CleanupScope();
  CleanupScope(const CleanupScope&) = delete;
  CleanupScope& operator=(const CleanupScope&) = delete;
};

}  // namespace railkit
