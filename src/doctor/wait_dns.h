#pragma once
// Waiting for an MPI hostfile's names to resolve. In an MPIJob the launcher
// often starts before the workers' pods are ready, and their names exist in
// cluster DNS only once they are; mpirun started too early fails to reach
// them. The wait polls every host until all resolve or a deadline passes.
// Time is read and slept through a Clock so tests run the loop on a fake one
// (no real sleeping), and names go through a Resolver (resolver.h).

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

// One pass: every host of the hostfile through the resolver (each distinct
// name asked once). The result feeds the mpi-hostfile-unresolvable rule.
HostfileCheck resolveHostfile(const Hostfile& hostfile, const std::string& path, Resolver& resolver);

struct WaitOptions {
  Clock::Duration timeout{std::chrono::seconds(60)};
  Clock::Duration interval{std::chrono::seconds(2)};
};

// What one poll found for one distinct host.
struct HostWait {
  std::string name;
  int line = 0;  // first line it appears on
  bool resolved = false;
  std::string detail;  // first address, or the last reason it did not resolve
  int polls = 0;       // polls made until it resolved (or in all)
  Clock::Duration resolved_after{0};
};

struct WaitResult {
  std::vector<HostWait> hosts;  // hostfile order
  bool all_resolved = false;
  int polls = 0;
  Clock::Duration elapsed{0};
};

// Called after each poll with the state so far (for progress output).
using WaitProgress = std::function<void(const WaitResult& state)>;

// Polls at once, then every `interval`, until every host resolves or
// `timeout` has passed (a last poll happens at the deadline). Only hosts not
// yet resolved are asked again.
WaitResult waitForHosts(const Hostfile& hostfile, Resolver& resolver, Clock& clock,
                        const WaitOptions& options, const WaitProgress& progress = {});

}  // namespace railkit::doctor
