// Resolvers, the mpi-hostfile-unresolvable rule and the wait loop. Names are
// resolved only from hosts files the tests write and from fakes: no test asks
// the machine's DNS server (SystemResolver is tried on numeric addresses only,
// which getaddrinfo answers without any lookup).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "doctor/hostfile.h"
#include "doctor/resolver.h"
#include "doctor/rule.h"
#include "doctor/wait_dns.h"

namespace railkit::doctor {
namespace {

namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "railkit_hostfile_XXXXXX").string();
    path_ = mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  fs::path write(const std::string& name, const std::string& text) const {
    std::ofstream(path_ / name, std::ios::binary | std::ios::trunc) << text;
    return path_ / name;
  }

 private:
  fs::path path_;
};

Hostfile parse(const std::string& text) {
  auto hf = parseHostfile(text, "hf");
  EXPECT_TRUE(hf) << hf.error().message;
  return hf ? *hf : Hostfile{};
}

TEST(DoctorHostsFile, ParsesAddressesNamesAndAliases) {
  auto table = parseHostsText(
      "127.0.0.1 localhost\n"
      "# 10.9.9.9 commented\n"
      "10.1.0.10   job-worker-0.job.team.svc.cluster.local Job-Worker-0  # alias\n"
      "fd00::10 job-worker-0\n"
      "not-an-address some-name\n"
      "10.1.0.11\n");
  EXPECT_EQ(table.count("10.9.9.9"), 0u);
  EXPECT_EQ(table.count("some-name"), 0u);
  ASSERT_EQ(table.count("job-worker-0"), 1u);
  EXPECT_EQ(table.at("job-worker-0"), (std::vector<std::string>{"10.1.0.10", "fd00::10"}));
  EXPECT_EQ(table.at("job-worker-0.job.team.svc.cluster.local"), (std::vector<std::string>{"10.1.0.10"}));
}

TEST(DoctorHostsFile, ResolverAnswersFromTheFileOnly) {
  TempDir dir;
  auto hosts = dir.write("hosts", "10.1.0.10 a.example\n10.1.0.11 b\n");
  auto opened = HostsFileResolver::open(hosts);
  ASSERT_TRUE(opened) << opened.error().message;
  auto& r = **opened;
  EXPECT_EQ(*r.resolve("a.example"), (std::vector<std::string>{"10.1.0.10"}));
  EXPECT_EQ(*r.resolve("A.Example."), (std::vector<std::string>{"10.1.0.10"}));  // case, trailing dot
  EXPECT_EQ(*r.resolve("192.0.2.1"), (std::vector<std::string>{"192.0.2.1"}));   // literal
  auto missing = r.resolve("localhost");  // not in this file: the machine's /etc/hosts is never read
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ErrorCode::kNotFound);
  EXPECT_NE(missing.error().message.find(hosts.string()), std::string::npos);
}

TEST(DoctorHostsFile, ResolverSeesTheFileChange) {
  TempDir dir;
  auto hosts = dir.write("hosts", "10.1.0.10 a\n");
  auto r = HostsFileResolver::open(hosts);
  ASSERT_TRUE(r);
  EXPECT_FALSE((*r)->resolve("late-pod"));
  dir.write("hosts", "10.1.0.10 a\n10.1.0.99 late-pod\n");  // size changes, so it is seen
  auto now = (*r)->resolve("late-pod");
  ASSERT_TRUE(now);
  EXPECT_EQ(now->front(), "10.1.0.99");
  fs::remove(hosts);
  auto gone = (*r)->resolve("a");
  ASSERT_FALSE(gone);
  EXPECT_EQ(gone.error().code, ErrorCode::kUnavailable);
}

TEST(DoctorHostsFile, OpenFailsOnMissingFile) {
  auto r = makeResolver("/nonexistent/railkit/hosts");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kNotFound);
  EXPECT_NE(r.error().message.find("/nonexistent/railkit/hosts"), std::string::npos);
}

TEST(DoctorSystemResolver, NumericAddressesNeedNoLookup) {
  SystemResolver r;
  r.start(7, "127.0.0.1");
  r.start(9, "::1");
  std::map<size_t, Result<Addresses>> got;
  for (int i = 0; i < 200 && got.size() < 2; ++i)  // 20 s at most on a loaded machine
    for (auto& a : r.wait(std::chrono::milliseconds(100))) got.emplace(a.id, std::move(a.addresses));
  ASSERT_EQ(got.size(), 2u);
  ASSERT_TRUE(got.at(7)) << got.at(7).error().message;
  EXPECT_EQ(got.at(7)->front(), "127.0.0.1");
  ASSERT_TRUE(got.at(9)) << got.at(9).error().message;
  EXPECT_EQ(got.at(9)->front(), "::1");
  EXPECT_TRUE(r.wait(std::chrono::milliseconds(0)).empty());  // each answer is given once
}

// A resolver whose names appear after a number of questions each.
class FakeResolver : public ImmediateResolver {
 public:
  std::map<std::string, int> resolves_after;  // name -> polls before it resolves (absent: never)
  std::map<std::string, int> asked;
  Result<std::vector<std::string>> resolve(const std::string& name) override {
    int n = ++asked[name];
    auto it = resolves_after.find(name);
    if (it == resolves_after.end() || n < it->second) return makeError(ErrorCode::kNotFound, "NXDOMAIN");
    return std::vector<std::string>{"10.0.0." + std::to_string(n)};
  }
};

class FakeClock : public Clock {
 public:
  Duration t{0};
  std::vector<Duration> sleeps;
  Duration now() override { return t; }
  void sleepFor(Duration d) override {
    sleeps.push_back(d);
    t += d;
  }
};

using std::chrono::milliseconds;

TEST(DoctorWaitDns, ResolvesAfterSomePolls) {
  auto hf = parse("w0 slots=2\nw1:2\nw0\nw2\n");
  FakeResolver resolver;
  resolver.resolves_after = {{"w0", 1}, {"w1", 3}, {"w2", 2}};
  FakeClock clock;
  int progress_calls = 0;
  auto result = waitForHosts(hf, resolver, clock, {milliseconds(10000), milliseconds(500)},
                             [&](const WaitResult&) { ++progress_calls; });
  EXPECT_TRUE(result.all_resolved);
  EXPECT_EQ(result.polls, 3);
  EXPECT_EQ(progress_calls, 3);
  EXPECT_EQ(result.elapsed, milliseconds(1000));
  EXPECT_EQ(clock.sleeps, (std::vector<milliseconds>{milliseconds(500), milliseconds(500)}));
  ASSERT_EQ(result.hosts.size(), 3u);  // w0 listed twice, waited for once
  EXPECT_EQ(result.hosts[0].name, "w0");
  EXPECT_EQ(result.hosts[0].polls, 1);
  EXPECT_EQ(result.hosts[1].resolved_after, milliseconds(1000));
  EXPECT_EQ(result.hosts[2].line, 4);
  EXPECT_EQ(result.hosts[2].polls, 2);
  EXPECT_EQ(resolver.asked["w0"], 1);  // a resolved host is not asked again
  EXPECT_EQ(resolver.asked["w1"], 3);
}

TEST(DoctorWaitDns, TimesOutNamingWhatIsLeft) {
  auto hf = parse("w0\nw1\n");
  FakeResolver resolver;
  resolver.resolves_after = {{"w0", 1}};
  FakeClock clock;
  auto result = waitForHosts(hf, resolver, clock, {milliseconds(5000), milliseconds(2000)});
  EXPECT_FALSE(result.all_resolved);
  // Polls at 0, 2, 4 and at the deadline 5: the last sleep is cut to it.
  EXPECT_EQ(result.polls, 4);
  EXPECT_EQ(clock.sleeps.back(), milliseconds(1000));
  EXPECT_EQ(result.elapsed, milliseconds(5000));
  EXPECT_TRUE(result.hosts[0].resolved);
  EXPECT_FALSE(result.hosts[1].resolved);
  EXPECT_EQ(result.hosts[1].detail, "NXDOMAIN");
  EXPECT_EQ(resolver.asked["w1"], 4);
}

TEST(DoctorWaitDns, ZeroTimeoutPollsOnce) {
  auto hf = parse("w0\n");
  FakeResolver resolver;
  FakeClock clock;
  auto result = waitForHosts(hf, resolver, clock, {milliseconds(0), milliseconds(100)});
  EXPECT_FALSE(result.all_resolved);
  EXPECT_EQ(result.polls, 1);
  EXPECT_TRUE(clock.sleeps.empty());
}

TEST(DoctorHostfileRule, FiresPerUnresolvableHostWithLine) {
  TempDir dir;
  auto hosts = dir.write("hosts", "10.1.0.10 job-worker-0.job.team.svc\n");
  auto resolver = makeResolver(hosts.string());
  ASSERT_TRUE(resolver);
  auto hf = parse("# launcher view\njob-worker-0.job.team.svc slots=8\njob-worker-1.job.team.svc slots=8\n");
  SteadyClock clock;
  auto check = resolveHostfile(hf, "/etc/mpi/hostfile", **resolver, clock);
  ASSERT_EQ(check.hosts.size(), 2u);
  EXPECT_TRUE(check.hosts[0].resolved);
  EXPECT_EQ(check.hosts[0].detail, "10.1.0.10");

  model::Inventory inventory;
  const Rule* rule = findRule("mpi-hostfile-unresolvable");
  ASSERT_NE(rule, nullptr);
  EXPECT_NE(std::string(rule->fix).find("svc.cluster.local"), std::string::npos);
  auto findings = rule->check(DoctorInput{inventory, &check});
  ASSERT_EQ(findings.size(), 1u);
  const auto& f = findings[0];
  EXPECT_EQ(f.id, "mpi-hostfile-unresolvable");
  EXPECT_EQ(f.severity, Severity::kError);
  EXPECT_EQ(f.subject, "job-worker-1.job.team.svc");
  ASSERT_EQ(f.evidence.size(), 1u);
  EXPECT_EQ(f.evidence[0].source, "/etc/mpi/hostfile");
  EXPECT_EQ(f.evidence[0].line, 3);
  EXPECT_NE(f.fix.find("wait-dns"), std::string::npos);
  EXPECT_NE(f.fix.find("headless Service"), std::string::npos);
}

TEST(DoctorHostfileRule, SilentWhenAllResolveOrNoHostfile) {
  TempDir dir;
  auto hosts = dir.write("hosts", "10.1.0.10 w0\n10.1.0.11 w1\n");
  auto resolver = makeResolver(hosts.string());
  ASSERT_TRUE(resolver);
  SteadyClock clock;
  auto check = resolveHostfile(parse("w0 slots=8\nw1:8\n10.1.0.12\n"), "hf", **resolver, clock);
  model::Inventory inventory;
  const Rule* rule = findRule("mpi-hostfile-unresolvable");
  ASSERT_NE(rule, nullptr);
  EXPECT_TRUE(rule->check(DoctorInput{inventory, &check}).empty());
  EXPECT_TRUE(rule->check(DoctorInput{inventory, nullptr}).empty());
}

}  // namespace
}  // namespace railkit::doctor
