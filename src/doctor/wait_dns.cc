// Resolving and waiting for hostfile names (see wait_dns.h).
#include "doctor/wait_dns.h"

#include <algorithm>
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

// Asks the resolver once about `host`, recording the outcome.
void poll(HostWait& host, Resolver& resolver) {
  ++host.polls;
  auto addrs = resolver.resolve(host.name);
  if (addrs && !addrs->empty()) {
    host.resolved = true;
    host.detail = addrs->front();
  } else {
    host.detail = addrs ? "no address" : addrs.error().message;
  }
}

}  // namespace

Clock::Duration SteadyClock::now() {
  return std::chrono::duration_cast<Duration>(std::chrono::steady_clock::now().time_since_epoch());
}

void SteadyClock::sleepFor(Duration duration) {
  std::this_thread::sleep_for(duration);
}

HostfileCheck resolveHostfile(const Hostfile& hostfile, const std::string& path, Resolver& resolver) {
  HostfileCheck check;
  check.path = path;
  for (auto& h : distinctHostWaits(hostfile)) {
    poll(h, resolver);
    check.hosts.push_back(HostfileHost{h.name, h.line, h.resolved, h.detail});
  }
  return check;
}

WaitResult waitForHosts(const Hostfile& hostfile, Resolver& resolver, Clock& clock,
                        const WaitOptions& options, const WaitProgress& progress) {
  WaitResult result;
  result.hosts = distinctHostWaits(hostfile);
  const auto start = clock.now();
  const auto deadline = start + std::max(options.timeout, Clock::Duration{0});
  const auto interval = std::max(options.interval, Clock::Duration{1});
  while (true) {
    ++result.polls;
    for (auto& h : result.hosts) {
      if (h.resolved) continue;
      poll(h, resolver);
      if (h.resolved) h.resolved_after = clock.now() - start;
    }
    const auto now = clock.now();
    result.elapsed = now - start;
    result.all_resolved =
        std::all_of(result.hosts.begin(), result.hosts.end(), [](const HostWait& h) { return h.resolved; });
    if (progress) progress(result);
    if (result.all_resolved || now >= deadline) break;
    clock.sleepFor(std::min(interval, deadline - now));
  }
  return result;
}

}  // namespace railkit::doctor
