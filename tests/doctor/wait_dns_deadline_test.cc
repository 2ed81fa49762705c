// The wait-dns deadline is a real bound: a resolver whose lookups never
// return (a dead nameserver) cannot hold the wait loop or doctor --hostfile
// past their deadline, every name of a poll is asked before any answer is
// awaited, and progress keeps coming while lookups hang. Also the hosts
// file resolver on inputs that are not files. No lookup here leaves the
// process: the resolvers are fakes and files the tests write.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <thread>

#include "doctor/hostfile.h"
#include "doctor/resolver.h"
#include "doctor/wait_dns.h"

namespace railkit::doctor {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

class FakeClock : public Clock {
 public:
  Duration t{0};
  Duration now() override { return t; }
  void sleepFor(Duration d) override { t += d; }
};

// Names in `nxdomain` are answered at once; every other lookup never
// returns: wait() spends the whole time it is given (on the fake clock).
class HangingResolver : public Resolver {
 public:
  explicit HangingResolver(FakeClock& clock) : clock_(clock) {}
  std::set<std::string> nxdomain;
  std::map<std::string, int> asked;
  std::vector<size_t> waits_before_start;  // per start(): how many wait() calls came before it
  std::vector<milliseconds> waits;

  void start(size_t id, const std::string& name) override {
    ++asked[name];
    waits_before_start.push_back(waits.size());
    if (nxdomain.count(name)) ready_.push_back(Answer{id, makeError(ErrorCode::kNotFound, "NXDOMAIN")});
  }
  std::vector<Answer> wait(milliseconds d) override {
    waits.push_back(d);
    EXPECT_GE(d.count(), 0);
    if (!ready_.empty()) return std::exchange(ready_, {});
    clock_.t += d;
    return {};
  }

 private:
  FakeClock& clock_;
  std::vector<Answer> ready_;
};

Hostfile parse(const std::string& text) {
  auto hf = parseHostfile(text, "hf");
  EXPECT_TRUE(hf) << hf.error().message;
  return hf ? *hf : Hostfile{};
}

TEST(DoctorWaitDnsDeadline, HangingLookupsEndAtTheDeadline) {
  std::string text;
  for (int i = 0; i < 1000; ++i) {
    text += 'w';
    text += std::to_string(i);
    text += '\n';
  }
  auto hf = parse(text);
  FakeClock clock;
  HangingResolver resolver(clock);
  resolver.nxdomain = {"w1"};
  std::vector<milliseconds> progress_at;
  auto result = waitForHosts(hf, resolver, clock, {milliseconds(5000), milliseconds(2000)},
                             [&](const WaitResult& s) { progress_at.push_back(s.elapsed); });
  EXPECT_FALSE(result.all_resolved);
  EXPECT_EQ(result.elapsed, milliseconds(5000));
  EXPECT_EQ(clock.t, milliseconds(5000));
  // All 1000 names were asked before any answer was awaited: in parallel.
  ASSERT_EQ(resolver.waits_before_start.size(), 1000u + 2u);  // w1 asked again at the polls at 2 s and 4 s
  for (size_t i = 0; i < 1000; ++i) ASSERT_EQ(resolver.waits_before_start[i], 0u) << i;
  // A name whose lookup still runs is not asked again; one that answered is.
  EXPECT_EQ(resolver.asked["w0"], 1);
  EXPECT_EQ(resolver.asked["w1"], 3);
  EXPECT_EQ(result.hosts[0].detail, "no answer from the resolver within 5.0s");
  EXPECT_TRUE(result.hosts[0].pending);
  EXPECT_EQ(result.hosts[1].detail, "NXDOMAIN");
  // Progress came at least every kProgressTick while nothing answered.
  ASSERT_FALSE(progress_at.empty());
  milliseconds last{0};
  for (auto at : progress_at) {
    EXPECT_LE(at - last, kProgressTick);
    last = at;
  }
  EXPECT_EQ(progress_at.back(), milliseconds(5000));
  // The loop never waited on the resolver longer than a tick at a time.
  for (auto w : resolver.waits) EXPECT_LE(w, kProgressTick);
}

TEST(DoctorWaitDnsDeadline, ZeroTimeoutStillWaitsOnlyTheGrace) {
  auto hf = parse("w0\nw1\n");
  FakeClock clock;
  HangingResolver resolver(clock);
  resolver.nxdomain = {"w1"};
  auto result = waitForHosts(hf, resolver, clock, {milliseconds(0), milliseconds(2000)});
  EXPECT_EQ(result.polls, 1);
  EXPECT_EQ(clock.t, kLastPollGrace);  // the last poll's answers get the grace, no more
  EXPECT_EQ(result.hosts[1].detail, "NXDOMAIN");
  EXPECT_EQ(result.hosts[0].detail, "no answer from the resolver within 0.5s");
}

TEST(DoctorWaitDnsDeadline, DoctorResolveIsBoundedToo) {
  auto hf = parse("w0 slots=8\nw1 slots=8\nw0\n");
  FakeClock clock;
  HangingResolver resolver(clock);
  resolver.nxdomain = {"w1"};
  auto check = resolveHostfile(hf, "/etc/mpi/hostfile", resolver, clock, milliseconds(3000));
  EXPECT_EQ(clock.t, milliseconds(3000));
  ASSERT_EQ(check.hosts.size(), 2u);
  EXPECT_FALSE(check.hosts[0].resolved);
  EXPECT_EQ(check.hosts[0].detail, "no answer from the resolver within 3.0s");
  EXPECT_EQ(check.hosts[1].detail, "NXDOMAIN");
  EXPECT_EQ(resolver.asked["w0"], 1);
}

// The same on the real clock with a resolver that really blocks in wait().
class SleepingResolver : public Resolver {
 public:
  void start(size_t, const std::string&) override {}
  std::vector<Answer> wait(milliseconds d) override {
    std::this_thread::sleep_for(d);
    return {};
  }
};

TEST(DoctorWaitDnsDeadline, RealClockReturnsNearTheDeadline) {
  auto hf = parse("a\nb\nc\n");
  SteadyClock clock;
  SleepingResolver resolver;
  const auto start = std::chrono::steady_clock::now();
  auto result = waitForHosts(hf, resolver, clock, {milliseconds(300), milliseconds(100)});
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_FALSE(result.all_resolved);
  EXPECT_GE(took, milliseconds(300));
  EXPECT_LT(took, std::chrono::seconds(8));  // ~0.8 s expected; 10x for a loaded machine
  auto check = resolveHostfile(hf, "hf", resolver, clock, milliseconds(200));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  EXPECT_FALSE(check.hosts[2].resolved);
}

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "railkit_waitdns_XXXXXX").string();
    path_ = mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// A FIFO with no writer, a device, a directory and a huge file are refused
// at once with one line; nothing blocks or fills memory.
TEST(DoctorHostsFileInputs, NotAFileIsRefusedAtOnce) {
  TempDir dir;
  const auto fifo = dir.path() / "fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const auto huge = dir.path() / "huge";
  { std::ofstream create(huge); }
  fs::resize_file(huge, kMaxHostsFileBytes + 1);  // sparse: no disk used
  const std::pair<fs::path, std::string> cases[] = {
      {fifo, "found a FIFO"},
      {"/dev/zero", "found a character device"},
      {dir.path(), "found a directory"},
      {huge, "larger than the 16 MiB limit"},
  };
  const auto start = std::chrono::steady_clock::now();
  for (const auto& [path, says] : cases) {
    auto r = HostsFileResolver::open(path);
    ASSERT_FALSE(r) << path;
    EXPECT_EQ(r.error().code, ErrorCode::kInvalidInput) << r.error().message;
    EXPECT_NE(r.error().message.find("hosts file " + path.string()), std::string::npos) << r.error().message;
    EXPECT_NE(r.error().message.find(says), std::string::npos) << r.error().message;
    EXPECT_EQ(r.error().message.find('\n'), std::string::npos);
    auto text = readHostfileText(path.string());
    ASSERT_FALSE(text) << path;
    EXPECT_NE(text.error().message.find("hostfile " + path.string()), std::string::npos);
    EXPECT_NE(text.error().message.find(says), std::string::npos) << text.error().message;
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

// A hosts file replaced by a FIFO during a wait: the lookup says so and the
// wait goes on; back as a file, names resolve again.
TEST(DoctorHostsFileInputs, FileTurnedFifoIsATemporaryFailure) {
  TempDir dir;
  const auto hosts = dir.path() / "hosts";
  std::ofstream(hosts) << "10.1.0.10 a\n";
  auto r = HostsFileResolver::open(hosts);
  ASSERT_TRUE(r) << r.error().message;
  fs::remove(hosts);
  ASSERT_EQ(mkfifo(hosts.c_str(), 0600), 0);
  auto during = (*r)->resolve("a");
  ASSERT_FALSE(during);
  EXPECT_EQ(during.error().code, ErrorCode::kUnavailable);
  EXPECT_NE(during.error().message.find("found a FIFO"), std::string::npos) << during.error().message;
  fs::remove(hosts);
  std::ofstream(hosts) << "10.1.0.12 a\n";
  auto after = (*r)->resolve("a");
  ASSERT_TRUE(after) << after.error().message;
  EXPECT_EQ(after->front(), "10.1.0.12");
}

}  // namespace
}  // namespace railkit::doctor
