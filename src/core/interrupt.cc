#include "core/interrupt.h"

#include <signal.h>

#include <atomic>
#include <string>

namespace railkit {
namespace {

// See interrupt.h: the one place with process-wide mutable state, because a
// signal handler can reach nothing else. Lock-free atomics only.
std::atomic<int> g_pending_signal{0};
std::atomic<int> g_cleanup_scopes{0};

static_assert(std::atomic<int>::is_always_lock_free, "the signal handler needs lock-free atomics");

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};

void raiseDefault(int sig) {
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  ::sigaction(sig, &dfl, nullptr);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  ::sigprocmask(SIG_UNBLOCK, &set, nullptr);
  ::raise(sig);
}

extern "C" void onSignal(int sig) {
  int expected = 0;
  g_pending_signal.compare_exchange_strong(expected, sig);
  // Nothing to clean up: behave as if no handler were installed.
  if (g_cleanup_scopes.load() == 0) raiseDefault(sig);
}

const char* signalName(int sig) {
  switch (sig) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    default: return "a signal";
  }
}

}  // namespace

void installInterruptHandlers() {
  struct sigaction sa {};
  sa.sa_handler = onSignal;
  sigemptyset(&sa.sa_mask);
  // Restart interrupted system calls: the loops poll the flag themselves, and
  // a library (libarchive) seeing EINTR would report a damaged archive.
  sa.sa_flags = SA_RESTART;
  for (int sig : kSignals) {
    struct sigaction old {};
    ::sigaction(sig, nullptr, &old);
    // A signal ignored by whoever started us (nohup) stays ignored.
    if (old.sa_handler == SIG_IGN) continue;
    ::sigaction(sig, &sa, nullptr);
  }
}

bool interruptRequested() {
  return g_pending_signal.load() != 0;
}

Status checkInterrupt(const char* what) {
  int sig = g_pending_signal.load();
  if (sig == 0) return okStatus();
  return makeError(ErrorCode::kIo, std::string(what) + ": interrupted by " + signalName(sig));
}

void raisePendingInterrupt() {
  int sig = g_pending_signal.load();
  if (sig != 0 && g_cleanup_scopes.load() == 0) raiseDefault(sig);
}

CleanupScope::CleanupScope() {
  g_cleanup_scopes.fetch_add(1);
}

CleanupScope::~CleanupScope() {
  if (g_cleanup_scopes.fetch_sub(1) == 1) raisePendingInterrupt();
}

}  // namespace railkit
