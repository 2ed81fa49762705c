// process-crash on real crash output (tests/logs/fixtures/real, sources in
// its README): Open MPI's signal block and mpirun's summary, UCX's `Caught
// signal`, torchrun's summary, several processes interleaved; one finding
// per crashed process naming its host, pid and rank; no finding for a line
// that merely names a signal, nor on clean real logs; `railkit logs` exits 1.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/cli_run.h"
#include "logs/input.h"
#include "logs/nccl/crash_line.h"
#include "nccl_log_test_util.h"
#include "support/test_support.h"

namespace railkit::logs {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string realPath(const std::string& name) {
  return (railkit::testing::sourceDir() / "tests" / "logs" / "fixtures" / "real" / name).string();
}

InputReport analyze(const std::string& name) {
  std::string text = testutil::readFile(realPath(name));
  EXPECT_FALSE(text.empty()) << name;
  return analyzeText(name, text);
}

std::vector<const Finding*> crashes(const InputReport& r) {
  std::vector<const Finding*> out;
  for (const auto& f : r.findings)
    if (f.id == "process-crash") out.push_back(&f);
  return out;
}

TEST(ProcessCrash, OpenMpiBlockAndMpirunSummaryAreOneProcess) {
  auto r = analyze("mpi_segfault_summary.log");
  auto found = crashes(r);
  ASSERT_EQ(found.size(), 1u) << ::testing::PrintToString(testutil::ids(r.findings));
  const Finding& f = *found[0];
  EXPECT_EQ(f.severity, Severity::kError);
  EXPECT_EQ(f.subject, "rank 0 (nhri pid 8445)");
  EXPECT_THAT(f.message, HasSubstr("signal 11 (SIGSEGV, segmentation fault)"));
  EXPECT_THAT(f.message, HasSubstr("[nhri:08445] *** Process received signal ***"));  // the line, quoted
  // The block's first line, its `Signal:` line, its end and the summary; not
  // its backtrace frames.
  std::vector<long> lines;
  for (const auto& e : f.evidence) lines.push_back(e.line.value_or(0));
  EXPECT_EQ(lines, (std::vector<long>{2, 3, 11, 13}));
  EXPECT_THAT(f.message, HasSubstr("4 lines report it"));
  // An MPI job's log without NCCL lines: still not an NCCL log, still the crash.
  EXPECT_EQ(r.kind, InputKind::kUnknown);
  EXPECT_FALSE(r.nccl.has_value());
}

TEST(ProcessCrash, LauncherSummaryAndAnotherHostAreTwoProcesses) {
  auto r = analyze("prterun_caught_signal.log");
  auto found = crashes(r);
  ASSERT_EQ(found.size(), 2u) << ::testing::PrintToString(testutil::ids(r.findings));
  EXPECT_EQ(found[0]->subject, "rank 48 (gpu-node07 pid 613162)");
  EXPECT_THAT(found[0]->message, HasSubstr("the launcher reports"));
  EXPECT_EQ(found[1]->subject, "gpu-node09 pid 332629");
  EXPECT_THAT(found[1]->message, HasSubstr("SIGSEGV"));
}

TEST(ProcessCrash, InterleavedBlocksBelongToTheNearestTag) {
  auto r = analyze("ompi_interleaved_crash.log");
  auto found = crashes(r);
  ASSERT_EQ(found.size(), 2u) << ::testing::PrintToString(testutil::ids(r.findings));
  EXPECT_EQ(found[0]->subject, "a1eb0914a5e2 pid 1167");  // its block's end is all the excerpt holds
  EXPECT_THAT(found[0]->message, HasSubstr("a fatal error or signal"));
  EXPECT_EQ(found[1]->subject, "877a4a03d442 pid 1142");
  EXPECT_THAT(found[1]->message, HasSubstr("SIGSEGV"));
  // cb0142391811 prints backtrace frames only in front of 877a4a03d442's words.
  for (const auto* f : found) EXPECT_THAT(f->subject, Not(HasSubstr("cb0142391811")));
}

TEST(ProcessCrash, TorchrunSigtermToSurvivorsIsNoCrash) {
  auto r = analyze("ucx_caught_signal_torchrun.log");
  auto found = crashes(r);
  ASSERT_EQ(found.size(), 2u) << ::testing::PrintToString(testutil::ids(r.findings));
  EXPECT_EQ(found[0]->subject, "job-3bb823c0-6d27-4312-8094-1c5910bf9b51-worker-0 pid 4682");
  EXPECT_EQ(found[1]->subject, "local rank 2 (pid 4677)");
  EXPECT_THAT(found[1]->message, HasSubstr("exitcode: -11"));
  EXPECT_THAT(found[1]->message, HasSubstr("SIGSEGV"));
  for (const auto* f : found)
    for (const auto& e : f->evidence) EXPECT_THAT(e.text, Not(HasSubstr("closing signal SIGTERM")));
}

TEST(ProcessCrash, MpirunTagOutputGivesTheRank) {
  auto r = analyze("ucx_tag_output_rank.log");
  auto found = crashes(r);
  ASSERT_EQ(found.size(), 1u) << ::testing::PrintToString(testutil::ids(r.findings));
  EXPECT_EQ(found[0]->subject, "rank 1522 (clx-hercules-067 pid 25098)");
}

// Real lines that name a signal without a process dying: UCX's CI exports
// (openucx/ucx contrib/test_jenkins.sh), torchrun and torch.multiprocessing
// stopping the survivors (NVIDIA/nccl#1538, deepseek-ai/DeepEP#106), and
// Open MPI's `Signal code:` detail alone.
TEST(ProcessCrash, LinesThatOnlyNameASignalAreNoCrash) {
  for (const char* line : {
           "\texport UCX_ERROR_SIGNALS=SIGILL,SIGSEGV,SIGBUS,SIGFPE,SIGPIPE,SIGABRT",
           "W1212 03:27:32.718000 4609 torch/distributed/elastic/multiprocessing/api.py:891] Sending process "
           "4675 closing signal SIGTERM",
           "[2025-04-02 14:59:58,020] torch.multiprocessing.spawn: [WARNING] Terminating process 11979 via "
           "signal SIGTERM",
           "[877a4a03d442:01142] Signal code:  (-6)",
           "==== backtrace (tid:   1618) ====",
       })
    EXPECT_FALSE(nccl::parseCrashLine(line).has_value()) << line;
}

TEST(ProcessCrash, EachFormNamesItsSignal) {
  struct Form {
    const char* line;
    int signal;
  };
  // Lines as the programs print them (the shapes of the fixtures above,
  // abseil's and Python's from tests/fixtures/logs/nccl/proxy_crash.log,
  // zsh's from signalapp/Signal-Desktop#7221, torchrun's error record).
  for (const Form& form : {
           Form{"[nhri:08445] Signal: Segmentation fault (11)", 11},
           Form{"*** SIGSEGV received at time=1712345678 on cpu 14 ***", 11},
           Form{"Fatal Python error: Segmentation fault", 11},
           Form{"zsh: segmentation fault (core dumped)  signal-desktop", 11},
           Form{"Aborted (core dumped)", 6},
           Form{"  traceback : Signal 6 (SIGABRT) received by PID 26026", 6},
           Form{"mpiexec noticed that process rank 0 with PID 10313 on node proton exited on signal 6 "
                "(Aborted).",
                6},
       }) {
    auto c = nccl::parseCrashLine(form.line);
    ASSERT_TRUE(c.has_value()) << form.line;
    EXPECT_EQ(c->signal, std::optional<int>(form.signal)) << form.line;
  }
}

// A process known by NCCL's header: its NCCL rank comes from its init line
// (the shapes of a 2.19 log; the crash block as Open MPI prints it).
TEST(ProcessCrash, NcclRankOfTheCrashedProcess) {
  NcclLogAnalyzer a("job.log");
  testutil::feedText(a,
                     "gpu-a:4242:4242 [1] NCCL INFO ncclCommInitRank comm 0x1 rank 5 nranks 16 cudaDev 1 "
                     "nvmlDev 1 busId 1b000 commId 0x2 - Init START\n"
                     "[gpu-a:04242] *** Process received signal ***\n"
                     "[gpu-a:04242] Signal: Bus error (7)\n");
  auto findings = a.findings();
  const Finding* f = testutil::find(findings, "process-crash");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->subject, "NCCL rank 5 (gpu-a pid 4242)");
  EXPECT_THAT(f->fix, HasSubstr("/dev/shm"));  // a bus error is the shared-memory segment's
}

TEST(ProcessCrash, CleanRealLogsHaveNone) {
  for (const char* name : {"healthy_ib_2_7.log", "nccl_tests_ok.log", "socket_recv_polling.log"}) {
    auto r = analyze(name);
    EXPECT_TRUE(crashes(r).empty()) << name;
  }
  if (!railkit::testing::haveShared()) GTEST_SKIP() << "no ../shared/data for the rest";
  for (const char* dir : {"nccl-logs", "nccl-tests", "perftest"})
    for (const auto& entry :
         std::filesystem::directory_iterator(railkit::testing::sharedDir() / "data" / dir)) {
      if (entry.path().extension() == ".md" || entry.path().extension() == ".json") continue;
      auto r = analyzeText(entry.path().string(), testutil::readFile(entry.path().string()));
      EXPECT_TRUE(crashes(r).empty()) << entry.path();
    }
}

TEST(ProcessCrash, CliExitsOneAndJsonNamesTheProcess) {
  auto human = railkit::testing::runRailkit("logs '" + realPath("mpi_segfault_summary.log") + "'");
  EXPECT_EQ(human.status, 1) << human.err;
  EXPECT_THAT(human.out, HasSubstr("process-crash"));
  EXPECT_THAT(human.out, Not(HasSubstr("no problems found")));
  auto json = railkit::testing::runRailkit("logs --json '" + realPath("mpi_segfault_summary.log") + "'");
  EXPECT_EQ(json.status, 1) << json.err;
  auto doc = nlohmann::json::parse(json.out);
  ASSERT_EQ(doc["findings"].size(), 1u) << json.out;
  EXPECT_EQ(doc["findings"][0]["id"], "process-crash");
  EXPECT_EQ(doc["findings"][0]["severity"], "error");
  EXPECT_EQ(doc["findings"][0]["subject"], "rank 0 (nhri pid 8445)");
  EXPECT_EQ(railkit::testing::runRailkit("explain process-crash").status, 0);
}

}  // namespace
}  // namespace railkit::logs
