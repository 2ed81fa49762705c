// End to end through the built binary: `doctor --hostfile` and `wait-dns`.
// Every run passes --etc-hosts (or RAILKIT_HOSTS_FILE) so names come only
// from files written here, never from the machine's DNS.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "cli/cli_run.h"
#include "support/node_builder.h"
#include "support/test_support.h"

namespace {

namespace fs = std::filesystem;
using railkit::testing::CliRun;

class DoctorHostfileCli : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "railkit_hostfile_cli_XXXXXX").string();
    dir_ = mkdtemp(tmpl.data());
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  std::string write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name, std::ios::binary | std::ios::trunc) << text;
    return (dir_ / name).string();
  }

  std::string read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

  // `prefix` goes before the binary, through env: assignments
  // (RAILKIT_HOSTS_FILE=...) or a command that runs it (timeout ...).
  CliRun run(const std::string& args, const std::string& prefix = "") {
    return railkit::testing::runShell(
        "exec env " + prefix + " " + railkit::testing::railkitBinary() + " " + args, dir_);
  }

  fs::path dir_;
};

const char* kHostfile =
    "# written by the MPI operator\n"
    "job-worker-0.job.team.svc slots=8\n"
    "job-worker-1.job.team.svc slots=8\n";

int countFindings(const nlohmann::json& doc, const std::string& id) {
  int n = 0;
  for (const auto& f : doc["findings"])
    if (f["id"] == id) ++n;
  return n;
}

TEST_F(DoctorHostfileCli, DoctorFiresForTheHostThatDoesNotResolve) {
  railkit::testing::buildHealthyDgxH100(dir_ / "node");
  auto hostfile = write("hostfile", kHostfile);
  auto hosts = write("hosts", "10.1.0.10 job-worker-0.job.team.svc\n");
  auto r = run("doctor --root " + (dir_ / "node").string() + " --hostfile " + hostfile + " --etc-hosts " +
               hosts + " --json");
  EXPECT_EQ(r.status, 1) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(countFindings(doc, "mpi-hostfile-unresolvable"), 1) << r.out;
  for (const auto& f : doc["findings"]) {
    if (f["id"] != "mpi-hostfile-unresolvable") continue;
    EXPECT_EQ(f["severity"], "error");
    EXPECT_EQ(f["subject"], "job-worker-1.job.team.svc");
    EXPECT_EQ(f["evidence"][0]["source"], hostfile);
    EXPECT_EQ(f["evidence"][0]["line"], 3);
  }
  // The same through RAILKIT_HOSTS_FILE, human view.
  auto human = run("doctor --root " + (dir_ / "node").string() + " --hostfile " + hostfile,
                   "RAILKIT_HOSTS_FILE=" + hosts);
  EXPECT_EQ(human.status, 1) << human.err;
  EXPECT_NE(human.out.find("[mpi-hostfile-unresolvable] job-worker-1.job.team.svc"), std::string::npos)
      << human.out;
  EXPECT_NE(human.out.find(hostfile + ":3"), std::string::npos) << human.out;
}

TEST_F(DoctorHostfileCli, DoctorSilentWhenEveryHostResolves) {
  railkit::testing::buildHealthyDgxH100(dir_ / "node");
  auto hostfile = write("hostfile", kHostfile);
  auto hosts = write("hosts", "10.1.0.10 job-worker-0.job.team.svc\n10.1.0.11 job-worker-1.job.team.svc\n");
  auto r = run("doctor --root " + (dir_ / "node").string() + " --hostfile " + hostfile + " --etc-hosts " +
               hosts + " --json");
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(countFindings(doc, "mpi-hostfile-unresolvable"), 0);
  EXPECT_EQ(doc["summary"]["errors"], 0);
}

TEST_F(DoctorHostfileCli, DoctorBadHostfileIsExit2WithOneLine) {
  auto hosts = write("hosts", "10.1.0.10 a\n");
  auto missing = run("doctor --hostfile " + (dir_ / "nope").string() + " --etc-hosts " + hosts);
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.err.find("no such file"), std::string::npos) << missing.err;
  auto bad = write("bad", "a slots=2\nb slots=two\n");
  auto r = run("doctor --hostfile " + bad + " --etc-hosts " + hosts);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find(bad + ":2: bad slot count"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST_F(DoctorHostfileCli, WaitDnsExit0WhenAllResolve) {
  auto hostfile = write("hostfile", kHostfile);
  auto hosts = write("hosts", "10.1.0.10 job-worker-0.job.team.svc\n10.1.0.11 job-worker-1.job.team.svc\n");
  auto r = run("wait-dns --hostfile " + hostfile + " --timeout 5 --etc-hosts " + hosts);
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("DNS OK    job-worker-1.job.team.svc -> 10.1.0.11"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("all 2 host(s) resolve"), std::string::npos) << r.out;
}

TEST_F(DoctorHostfileCli, WaitDnsExit1AtTimeoutNamingTheHost) {
  auto hostfile = write("hostfile", kHostfile);
  auto hosts = write("hosts", "10.1.0.10 job-worker-0.job.team.svc\n");
  auto start = std::chrono::steady_clock::now();
  auto r = run("wait-dns --hostfile " + hostfile + " --timeout 0.6 --interval 0.2 --etc-hosts " + hosts +
               " --json");
  auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_GE(took, std::chrono::milliseconds(600));
  EXPECT_LT(took, std::chrono::seconds(10));
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["all_resolved"], false);
  EXPECT_EQ(doc["unresolved"], nlohmann::json::array({"job-worker-1.job.team.svc"}));
  EXPECT_GE(doc["polls"].get<int>(), 3);
  auto human = run("wait-dns --hostfile " + hostfile + " --timeout 0 --etc-hosts " + hosts);
  EXPECT_EQ(human.status, 1);
  EXPECT_NE(human.out.find("1 of 2 host(s) still do not resolve: job-worker-1.job.team.svc"),
            std::string::npos)
      << human.out;
}

TEST_F(DoctorHostfileCli, WaitDnsSeesAHostAppear) {
  auto hostfile = write("hostfile", kHostfile);
  auto hosts = write("hosts", "10.1.0.10 job-worker-0.job.team.svc\n");
  std::thread later([&] {
    // Not an ordering: a host that appears while wait-dns polls is what is
    // tested, and the polls and resolved_after_s below prove it was missing.
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    write("hosts", "10.1.0.10 job-worker-0.job.team.svc\n10.1.0.11 job-worker-1.job.team.svc\n");
  });
  auto r = run("wait-dns --hostfile " + hostfile + " --timeout 20 --interval 0.1 --etc-hosts " + hosts +
               " --json");
  later.join();
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["all_resolved"], true);
  EXPECT_GE(doc["hosts"][1]["polls"].get<int>(), 2);
  EXPECT_GT(doc["hosts"][1]["resolved_after_s"].get<double>(), 0.0);
  EXPECT_LT(doc["elapsed_s"].get<double>(), 15.0);
}

// Without --etc-hosts the system resolver answers; numeric addresses are
// answered by getaddrinfo itself, so this still asks no DNS server.
TEST_F(DoctorHostfileCli, WaitDnsSystemResolverOnAddresses) {
  auto hostfile = write("hostfile", "127.0.0.1 slots=2\n::1:4\n");
  auto r = run("wait-dns --hostfile " + hostfile + " --timeout 1 --json", "env -u RAILKIT_HOSTS_FILE");
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  auto doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc["hosts"].size(), 2u);
  EXPECT_EQ(doc["hosts"][0]["address"], "127.0.0.1");
  EXPECT_EQ(doc["hosts"][1]["name"], "::1:4");  // IPv6: the colon is not host:N
}

TEST_F(DoctorHostfileCli, WaitDnsBadArgumentsAreExit2) {
  auto hostfile = write("hostfile", kHostfile);
  auto hosts = write("hosts", "10.1.0.10 x\n");
  const std::string hf = " --hostfile " + hostfile + " --etc-hosts " + hosts;
  struct Case {
    std::string args;
    std::string says;
  } cases[] = {
      {"wait-dns --etc-hosts " + hosts + " --timeout 1", "--hostfile"},
      {"wait-dns" + hf, "--timeout"},
      {"wait-dns" + hf + " --timeout -1", "--timeout"},
      {"wait-dns" + hf + " --timeout 1 --interval 0", "--interval"},
      {"wait-dns --hostfile " + (dir_ / "missing").string() + " --etc-hosts " + hosts + " --timeout 1",
       "no such file"},
      {"wait-dns --hostfile " + write("bad", "w0 slots=8\nw1 slots=x\n") + " --etc-hosts " + hosts +
           " --timeout 1",
       ":2: bad slot count"},
      {"wait-dns --hostfile " + write("empty", "# none\n") + " --etc-hosts " + hosts + " --timeout 1",
       "no hosts"},
      {"wait-dns --hostfile " + hostfile + " --etc-hosts " + (dir_ / "nohosts").string() + " --timeout 1",
       "no such file"},
      {"wait-dns" + hf + " --timeout 1 --rewrite-fqdn", "--output"},
      {"wait-dns --hostfile " + write("short", "w0 slots=8\n") + " --etc-hosts " + hosts +
           " --timeout 1 --rewrite-fqdn --output " + (dir_ / "o").string(),
       ":1: host w0 is a bare pod name"},
      {"wait-dns" + hf + " --timeout 1 --rewrite-fqdn --output " + (dir_ / "no/such/dir/o").string(),
       "cannot create a file in"},
      {"wait-dns" + hf + " --timeout 1 --rewrite-fqdn --namespace team --output " + dir_.string(),
       "is a directory"},
  };
  for (const auto& c : cases) {
    auto r = run(c.args);
    EXPECT_EQ(r.status, 2) << c.args << "\n" << r.out << r.err;
    EXPECT_NE((r.err + r.out).find(c.says), std::string::npos) << c.args << "\n" << r.err << r.out;
  }
}

TEST_F(DoctorHostfileCli, WaitDnsRewriteFqdnWritesTheClusterForm) {
  auto hostfile = write("hostfile",
                        "# workers\r\n"
                        "job-worker-0.job-worker slots=8\r\n"
                        "job-worker-1 slots=8 max_slots=8\r\n"
                        "job-worker-2.job-worker.team.svc:8\r\n");
  auto hosts = write("hosts",
                     "10.1.0.10 job-worker-0.job-worker.team.svc.cluster.local\n"
                     "10.1.0.11 job-worker-1.job-worker.team.svc.cluster.local\n"
                     "10.1.0.12 job-worker-2.job-worker.team.svc.cluster.local\n");
  auto out = (dir_ / "hostfile.fqdn").string();
  auto r = run("wait-dns --hostfile " + hostfile + " --timeout 2 --etc-hosts " + hosts +
               " --rewrite-fqdn --namespace team --service job-worker --output " + out);
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(read(out),
            "# workers\n"
            "job-worker-0.job-worker.team.svc.cluster.local slots=8\n"
            "job-worker-1.job-worker.team.svc.cluster.local slots=8 max_slots=8\n"
            "job-worker-2.job-worker.team.svc.cluster.local:8\n");
  EXPECT_NE(r.out.find("wrote " + out), std::string::npos) << r.out;
  // The short names are not in the hosts file: without the rewrite the wait fails.
  EXPECT_EQ(run("wait-dns --hostfile " + hostfile + " --timeout 0 --etc-hosts " + hosts).status, 1);
}

// --hostfile and --etc-hosts given a FIFO (no writer), a device, a directory
// or a huge file: exit 2 at once with one line. `timeout 60` turns a hang
// (the old reader blocked on a FIFO, read /dev/zero forever) into a failure.
TEST_F(DoctorHostfileCli, NotAFileIsExit2AtOnce) {
  auto hostfile = write("hostfile", kHostfile);
  auto hosts = write("hosts", "10.1.0.10 job-worker-0.job.team.svc\n");
  const auto fifo = (dir_ / "fifo").string();
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const auto huge = (dir_ / "huge").string();
  { std::ofstream create(huge); }
  fs::resize_file(huge, (16u << 20) + 1);  // sparse
  const std::pair<std::string, std::string> inputs[] = {{fifo, "found a FIFO"},
                                                        {"/dev/zero", "found a character device"},
                                                        {dir_.string(), "found a directory"},
                                                        {huge, "larger than the 16 MiB limit"}};
  const auto start = std::chrono::steady_clock::now();
  for (const auto& [path, says] : inputs) {
    const std::string cmds[] = {
        "doctor --hostfile " + path + " --etc-hosts " + hosts,
        "wait-dns --hostfile " + path + " --etc-hosts " + hosts + " --timeout 1",
        "doctor --hostfile " + hostfile + " --etc-hosts " + path,
        "wait-dns --hostfile " + hostfile + " --etc-hosts " + path + " --timeout 1",
    };
    for (const auto& args : cmds) {
      auto r = run(args, "timeout -s KILL 60");
      EXPECT_EQ(r.status, 2) << args << "\n" << r.out << r.err;
      EXPECT_NE(r.err.find(says), std::string::npos) << args << "\n" << r.err;
      EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << "\n" << r.err;
    }
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(60));
}

// A host name starting with '-' would be an option on ssh's command line.
TEST_F(DoctorHostfileCli, DashHostIsExit2NamingFileAndLine) {
  auto hosts = write("hosts", "10.1.0.10 a\n");
  auto bad = write("dash", "a slots=2\n-oProxyCommand slots=2\n");
  for (const std::string& cmd : {"doctor --hostfile " + bad + " --etc-hosts " + hosts,
                                 "wait-dns --hostfile " + bad + " --etc-hosts " + hosts + " --timeout 1"}) {
    auto r = run(cmd);
    EXPECT_EQ(r.status, 2) << cmd << "\n" << r.out << r.err;
    EXPECT_NE(r.err.find(bad + ":2: host name '-oProxyCommand' starts with '-'"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

TEST_F(DoctorHostfileCli, DoctorDnsTimeoutIsValidated) {
  auto hostfile = write("hostfile", kHostfile);
  auto hosts = write("hosts", "10.1.0.10 a\n");
  for (const char* v : {"0", "-1", "nan", "100000"}) {
    auto r = run("doctor --hostfile " + hostfile + " --etc-hosts " + hosts + " --dns-timeout " + v);
    EXPECT_EQ(r.status, 2) << v << "\n" << r.out << r.err;
    EXPECT_NE(r.err.find("--dns-timeout"), std::string::npos) << r.err;
  }
}

// --output is replaced in one step: an existing file is replaced whole, no
// temporary file stays behind, and a failed rewrite leaves it untouched.
TEST_F(DoctorHostfileCli, WaitDnsOutIsWrittenAtomically) {
  auto hostfile = write("hostfile", "job-worker-0.job-worker slots=8\n");
  auto hosts = write("hosts", "10.1.0.10 job-worker-0.job-worker.team.svc.cluster.local\n");
  auto out = write("hostfile.fqdn", std::string(100000, '#') + "\n");  // longer than the result
  auto r = run("wait-dns --hostfile " + hostfile + " --timeout 2 --etc-hosts " + hosts +
               " --rewrite-fqdn --namespace team --output " + out);
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(read(out), "job-worker-0.job-worker.team.svc.cluster.local slots=8\n");
  for (const auto& e : fs::directory_iterator(dir_))
    EXPECT_EQ(e.path().filename().string().find(".tmp-"), std::string::npos) << e.path();
  auto bare = write("bare", "w0 slots=8\n");
  auto failed = run("wait-dns --hostfile " + bare + " --timeout 0 --etc-hosts " + hosts +
                    " --rewrite-fqdn --namespace team --output " + out);
  EXPECT_EQ(failed.status, 2);
  EXPECT_EQ(read(out), "job-worker-0.job-worker.team.svc.cluster.local slots=8\n");
}

}  // namespace
