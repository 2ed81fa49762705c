// process-crash: a process of the job died on a signal (a segfault, an
// abort, a bus error, a kill), one finding per process, naming its host,
// pid and rank as far as the log shows them (crash_line.h reads the lines).
// NCCL prints nothing when its process dies, so the rule reads any
// program's lines and reports even on a log without NCCL's.
#include <algorithm>
#include <string>

#include "logs/nccl/rule.h"
#include "logs/nccl/text.h"

namespace railkit::logs::nccl {
namespace {

// The NCCL ranks of a process, from the per-rank view (the header of its
// lines gives host and pid), when the crash names no rank itself.
std::vector<uint64_t> ncclRanks(const CrashedProcess& p, const NcclLogFacts& facts) {
  std::vector<uint64_t> out;
  if (!p.pid || p.host.empty()) return out;
  for (const auto& r : facts.per_rank.ranks)
    if (r.pid == p.pid && r.rank &&
        (r.host == p.host || startsWith(p.host, r.host + ".") || startsWith(r.host, p.host + ".")))
      out.push_back(*r.rank);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::string rankList(const std::vector<uint64_t>& ranks) {
  std::string out = ranks.size() == 1 ? "rank " : "ranks ";
  for (size_t i = 0; i < ranks.size() && i < 8; ++i) out += (i ? "," : "") + std::to_string(ranks[i]);
  if (ranks.size() > 8) out += ",...";
  return out;
}

// "rank 48 (gpu-node07 pid 613162)", "gpu-node09 pid 332629", "local rank 2 (pid 4677)", "a process".
std::string subjectOf(const CrashedProcess& p, const std::vector<uint64_t>& nccl_ranks) {
  std::string where = p.host;
  if (p.pid) where += (where.empty() ? "pid " : " pid ") + std::to_string(*p.pid);
  std::string who;
  if (p.rank)
    who = "rank " + std::to_string(*p.rank);
  else if (!nccl_ranks.empty())
    who = "NCCL " + rankList(nccl_ranks);
  else if (p.local_rank)
    who = "local rank " + std::to_string(*p.local_rank);
  if (who.empty()) return where.empty() ? "a process" : where;
  return where.empty() ? who : who + " (" + where + ")";
}

std::string signalText(const CrashedProcess& p) {
  if (!p.signal) return "a fatal error or signal";
  std::string out = "signal " + std::to_string(*p.signal);
  std::string_view name = signalName(*p.signal), words = signalDescription(*p.signal);
  if (!name.empty()) out += " (" + std::string(name) + ", " + std::string(words) + ")";
  return out;
}

// What to do, by what ended the process.
std::string fixFor(const CrashedProcess& p) {
  switch (p.signal.value_or(0)) {
    case 7:
      return "a bus error in a job that uses NCCL's shared-memory transport is most often /dev/shm running "
             "out (64 MiB in a Kubernetes pod by default): mount a memory-backed emptyDir at /dev/shm sized "
             "for the job; otherwise keep the backtrace, as for a segmentation fault";
    case 9:
      return "the process was killed from outside: look for the OOM killer in its node's kernel log and "
             "compare the pod's memory limit with what the job uses, or find the process whose failure made "
             "the launcher kill the others";
    case 15:
      return "the process was told to stop (the launcher cleaning up after another rank failed, a time "
             "limit, a preemption): find the first process that failed";
    case 6:
      return "the process aborted itself: the lines just before it say why (an assertion, an uncaught "
             "C++ exception such as PyTorch's NCCL watchdog error, a library's fatal check); fix that "
             "first error";
    default:
      return "keep the backtrace: its first frame inside a library names what crashed (libnccl, the MPI's "
             "UCX/UCC, libibverbs, the application); fix the first error the log shows before the crash; a "
             "crash inside NCCL with no error before it is a bug to report with the NCCL version and the "
             "backtrace, often fixed in a newer release";
  }
}

std::vector<Finding> buildEach(const RuleContext& c) {
  std::vector<Finding> out;
  auto processes = c.state.crashes.processes();
  if (processes.empty()) return out;
  // What the crash explains: the other ranks' timeouts and closed
  // connections follow from it; the proxy finding says where NCCL crashed.
  std::vector<std::string> related;
  for (const auto& f : c.earlier)
    if ((f.id == kNcclTimeout.id || f.id == kNcclConnectionClosed.id || f.id == kNcclProxyCrash.id) &&
        std::find(related.begin(), related.end(), f.id) == related.end())
      related.push_back(f.id);
  for (size_t i = 0; i < processes.size(); ++i) {
    const CrashedProcess& p = processes[i];
    auto nccl_ranks = p.rank ? std::vector<uint64_t>{} : ncclRanks(p, c.facts);
    Finding f = findingOf(kProcessCrash);
    f.subject = validUtf8(subjectOf(p, nccl_ranks));
    f.message = (p.launcher && p.lines == 1 ? "the launcher reports that " : "") + f.subject + " died on " +
                signalText(p) + ": \"" + p.headline + "\" (line " + std::to_string(p.first_line) + ")";
    if (p.lines > 1) f.message += "; " + std::to_string(p.lines) + " lines report it";
    if (!related.empty()) {
      f.message += "; the other ranks' failures follow from it (";
      for (size_t k = 0; k < related.size(); ++k) f.message += (k ? ", " : "") + related[k];
      f.message += ")";
    }
    if (i + 1 == processes.size() && c.state.crashes.notKept() > 0)
      f.message += "; " + std::to_string(c.state.crashes.notKept()) + " more crashed process(es) not listed";
    f.fix = fixFor(p);
    f.file = c.state.file;
    f.evidence = p.evidence;
    if (!f.evidence.empty()) f.line = f.evidence.front().line;
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace

extern const NcclRule kProcessCrash = {
    {"process-crash", Severity::kError, "A process of the job crashed (died on a signal)",
     R"(A process of the job died on a signal: a segmentation fault, an abort, a bus error or a kill, as
Open MPI's and UCX's signal handlers, Python's faulthandler, the shell, or the launcher's summary
(mpirun/prterun `exited on signal`, torchrun `exitcode: -N`) report it. One finding per process,
naming its host, pid and rank as far as the log shows them. The other ranks then time out or lose
their connections: those findings are its consequences. A line that merely names a signal (an
environment dump, a handler being installed, torchrun sending SIGTERM to the survivors) is not a
crash.)",
     R"(Fix: read the lines before the crash for its first error and the backtrace for the library that
crashed; a bus error is most often a full /dev/shm, a kill the OOM killer or the launcher, an abort a
failed check or uncaught exception.)"},
    nullptr,
    nullptr,
    /*reads_text=*/false,
    buildEach,
    /*any_log=*/true};

}  // namespace railkit::logs::nccl
