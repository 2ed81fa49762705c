#pragma once
// Waiting for an MPI hostfile's names to resolve. In an MPIJob the launcher
// often starts before the workers' pods are ready, and their names exist in
// cluster DNS only once they are; mpirun started too early fails to reach
// them. The wait polls every host until all resolve or a deadline passes.
// Time is read and slept through a Clock so tests run the loop on a fake one
// (no real sleeping), and names go through a Resolver (resolver.h).
//
// The deadline is a real bound: every name of a poll is looked up in
// parallel, and the loop only ever waits on answers for as long as is left,
// so a nameserver that never answers cannot hold it past the deadline (plus
// kLastPollGrace). Lookups still running then are abandoned.

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "doctor/hostfile.h"
#include "doctor/resolver.h"
#include "doctor/rule.h"

namespace railkit::doctor {

class Clock {
 public:
  using Duration = std::chrono::milliseconds;
  virtual ~Clock() = default;
  // Monotonic time since some fixed start.
  virtual Duration now() = 0;
  virtual void sleepFor(Duration duration) = 0;
};

class SteadyClock : public Clock {
 public:
  Duration now() override;
  void sleepFor(Duration duration) override;
};

// While lookups are outstanding the loop wakes at least this often, so
// progress output keeps coming even when the nameserver is silent.
inline constexpr Clock::Duration kProgressTick{1000};
// A poll made at (or just before) the deadline still gets this long for its
// answers: a `--timeout 0` check of names in /etc/hosts or of addresses must
// see them, and the wait overruns its deadline by at most this.
inline constexpr Clock::Duration kLastPollGrace{500};
// doctor --hostfile's default bound on all its lookups together.
inline constexpr Clock::Duration kDefaultDnsTimeout{5000};

// One pass: every host of the hostfile through the resolver, all at once
// (each distinct name asked once), waiting at most `timeout` for the answers.
// A host with no answer by then counts as unresolved ("no answer within
// ..."). The result feeds the mpi-hostfile-unresolvable rule.
HostfileCheck resolveHostfile(const Hostfile& hostfile, const std::string& path, Resolver& resolver,
                              Clock& clock, Clock::Duration timeout = kDefaultDnsTimeout);

struct WaitOptions {
  Clock::Duration timeout{std::chrono::seconds(60)};
  Clock::Duration interval{std::chrono::seconds(2)};
};

// What one poll found for one distinct host.
struct HostWait {
  std::string name;
  int line = 0;  // first line it appears on
  bool resolved = false;
  bool pending = false;   // a lookup is running (at the end: abandoned)
  bool answered = false;  // some lookup of it has finished
  std::string detail;     // first address, or the last reason it did not resolve
  int polls = 0;          // polls made until it resolved (or in all)
  Clock::Duration resolved_after{0};
};

struct WaitResult {
  std::vector<HostWait> hosts;  // hostfile order
  bool all_resolved = false;
  int polls = 0;
  Clock::Duration elapsed{0};
};

// Called after each poll, and every kProgressTick while lookups are still
// running, with the state so far (for progress output).
using WaitProgress = std::function<void(const WaitResult& state)>;

// Polls at once, then every `interval`, until every host resolves or
// `timeout` has passed (a last poll happens at the deadline). Only hosts not
// yet resolved are asked again, and not while their last lookup still runs.
WaitResult waitForHosts(const Hostfile& hostfile, Resolver& resolver, Clock& clock,
                        const WaitOptions& options, const WaitProgress& progress = {});

}  // namespace railkit::doctor
