// Resolving and waiting for hostfile names (see wait_dns.h).
#include "doctor/wait_dns.h"

#include <algorithm>
#include <cstdio>
#include <thread>
#include <unordered_map>

namespace railkit::doctor {
namespace {

std::vector<HostWait> distinctHostWaits(const Hostfile& hostfile) {
  std::vector<HostWait> out;
  std::unordered_map<std::string, size_t> seen;
  for (const auto& e : hostfile.entries) {
    if (!seen.emplace(e.host, out.size()).second) continue;
    HostWait h;
    h.name = e.host;
    h.line = e.line;
    out.push_back(std::move(h));
  }
  return out;
}

std::string secondsText(Clock::Duration d) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1fs", static_cast<double>(d.count()) / 1000.0);
  return buf;
}

// The lookups of one wait: starts them (all at once) and files their answers
// under the hosts they are for.
class Lookups {
 public:
  Lookups(std::vector<HostWait>& hosts, Resolver& resolver, Clock& clock)
      : hosts_(hosts), resolver_(resolver), clock_(clock), start_(clock.now()) {}

  Clock::Duration start() const { return start_; }
  size_t outstanding() const { return outstanding_; }

  // Asks about every host not resolved yet whose last lookup has finished.
  void startAll() {
    for (size_t i = 0; i < hosts_.size(); ++i) {
      auto& h = hosts_[i];
      if (h.resolved || h.pending) continue;
      ++h.polls;
      h.pending = true;
      ++outstanding_;
      resolver_.start(i, h.name);
    }
  }

  // Takes the answers that come before `until` (at least one look, even when
  // `until` has passed), waking every kProgressTick to call `on_tick`.
  template <class OnTick>
  void collectUntil(Clock::Duration until, OnTick&& on_tick) {
    while (true) {
      const auto now = clock_.now();
      const auto wake = std::min(until, std::max(now, next_tick_));
      for (auto& answer : resolver_.wait(std::max(wake - now, Clock::Duration{0}))) take(answer);
      const auto after = clock_.now();
      if (outstanding_ == 0 || after >= until) return;
      if (after >= next_tick_) {
        next_tick_ = after + kProgressTick;
        on_tick();
      }
    }
  }

  // Lookups still running are abandoned: say so for hosts that never got an
  // answer (the others keep their last reason).
  void abandonRunning(Clock::Duration waited) {
    for (auto& h : hosts_)
      if (h.pending && !h.answered) h.detail = "no answer from the resolver within " + secondsText(waited);
  }

 private:
  void take(Answer& answer) {
    if (answer.id >= hosts_.size() || !hosts_[answer.id].pending) return;
    auto& h = hosts_[answer.id];
    h.pending = false;
    h.answered = true;
    --outstanding_;
    if (answer.addresses && !answer.addresses->empty()) {
      h.resolved = true;
      h.detail = answer.addresses->front();
      h.resolved_after = clock_.now() - start_;
    } else {
      h.detail = answer.addresses ? "no address" : answer.addresses.error().message;
    }
  }

  std::vector<HostWait>& hosts_;
  Resolver& resolver_;
  Clock& clock_;
  const Clock::Duration start_;
  Clock::Duration next_tick_ = start_ + kProgressTick;
  size_t outstanding_ = 0;
};

void refresh(WaitResult& result, Clock::Duration elapsed) {
  result.elapsed = elapsed;
  result.all_resolved =
      std::all_of(result.hosts.begin(), result.hosts.end(), [](const HostWait& h) { return h.resolved; });
}

}  // namespace

Clock::Duration SteadyClock::now() {
  return std::chrono::duration_cast<Duration>(std::chrono::steady_clock::now().time_since_epoch());
}

void SteadyClock::sleepFor(Duration duration) {
  std::this_thread::sleep_for(duration);
}

HostfileCheck resolveHostfile(const Hostfile& hostfile, const std::string& path, Resolver& resolver,
                              Clock& clock, Clock::Duration timeout) {
  auto hosts = distinctHostWaits(hostfile);
  Lookups lookups(hosts, resolver, clock);
  lookups.startAll();
  lookups.collectUntil(lookups.start() + std::max(timeout, Clock::Duration{0}), [] {});
  lookups.abandonRunning(clock.now() - lookups.start());
  HostfileCheck check;
  check.path = path;
  for (auto& h : hosts) check.hosts.push_back(HostfileHost{h.name, h.line, h.resolved, h.detail});
  return check;
}

WaitResult waitForHosts(const Hostfile& hostfile, Resolver& resolver, Clock& clock,
                        const WaitOptions& options, const WaitProgress& progress) {
  WaitResult result;
  result.hosts = distinctHostWaits(hostfile);
  Lookups lookups(result.hosts, resolver, clock);
  const auto start = lookups.start();
  const auto deadline = start + std::max(options.timeout, Clock::Duration{0});
  const auto interval = std::max(options.interval, Clock::Duration{1});
  while (true) {
    ++result.polls;
    const auto poll_at = clock.now();
    lookups.startAll();
    // Answers are awaited until the next poll is due; the last poll, at the
    // deadline, gets kLastPollGrace.
    auto until = poll_at + interval;
    if (until >= deadline) until = std::max(deadline, poll_at + kLastPollGrace);
    lookups.collectUntil(until, [&] {
      refresh(result, clock.now() - start);
      if (progress) progress(result);
    });
    const auto now = clock.now();
    refresh(result, now - start);
    if (progress) progress(result);
    if (result.all_resolved || now >= deadline) break;
    // With lookups still running the next poll is due now; else sleep to it.
    const auto next = std::min(poll_at + interval, deadline);
    if (lookups.outstanding() == 0 && next > now) clock.sleepFor(next - now);
  }
  lookups.abandonRunning(result.elapsed);
  return result;
}

}  // namespace railkit::doctor
