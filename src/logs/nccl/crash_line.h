#pragma once
// A process of the job that died on a signal, as a job log shows it. NCCL
// itself prints nothing when its process crashes: the words come from
// whatever else is in the log. Open MPI's signal handler (`[host:pid] ***
// Process received signal ***`, `Signal: Segmentation fault (11)`, its
// backtrace and `*** End of error message ***`), UCX's (`[host:pid:0:tid]
// Caught signal 11 (Segmentation fault: ...)`), abseil's and glog's (`***
// SIGSEGV received at time=...`), Python's faulthandler (`Fatal Python error:
// Segmentation fault`), the shell (`Segmentation fault (core dumped)`), a C++
// `terminate called after throwing ...`, and the launcher's summary: mpirun or
// prterun (`mpirun noticed that process rank 0 with PID 8445 on node nhri
// exited on signal 11 (Segmentation fault).`) and torchrun (`failed
// (exitcode: -11) local_rank: 2 (pid: 4677)`, `Signal 11 (SIGSEGV) received
// by PID 4677`). A line that merely names a signal (an environment dump's
// `UCX_ERROR_SIGNALS=SIGILL,SIGSEGV`, torchrun's `Sending process 4675
// closing signal SIGTERM`, a handler being installed) reports no crash.
//
// Each crash line is told apart by who printed it: the `[host:pid]` tag in
// front of the words (Open MPI, UCX: the nearest tag, as processes' lines
// interleave), NCCL's `host:pid:tid [dev]` header, mpirun's `[1,N]<stderr>:`
// and torchrun's `[rankN]:` rank tags, or what the launcher's summary names.
// CrashCollector groups the lines by process, so one crash is one entry
// however many lines its block has; its memory is bounded.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "core/finding.h"

namespace railkit::logs::nccl {

// Cheap pre-check (a few substring searches): whether `text` holds a word
// that may start a crash report. The line classifier asks it of every line
// without "NCCL", so that such lines reach the analyser.
bool mentionsCrash(std::string_view text);

struct CrashLine {
  std::string_view host;  // "" when the line names none
  std::optional<uint64_t> pid, rank, local_rank;
  std::optional<int> signal;  // the signal number, when the line tells it
  bool launcher = false;      // the launcher's summary (mpirun, prterun, torchrun)
};

// What `text` says of a crashed process; nullopt when it reports no crash.
std::optional<CrashLine> parseCrashLine(std::string_view text);

// "SIGSEGV" for 11, ...; "" for a number without a name here.
std::string_view signalName(int signal);
// "segmentation fault" for 11, ...; "" when unknown.
std::string_view signalDescription(int signal);

struct CrashedProcess {
  std::string host;  // "" when no line named it
  std::optional<uint64_t> pid, rank, local_rank;
  std::optional<int> signal;
  std::string headline;  // the first line that reported it (bounded)
  uint64_t first_line = 0;
  uint64_t lines = 0;
  bool launcher = false;           // the launcher's summary named it
  std::vector<Evidence> evidence;  // its first lines, at most kMaxEvidence
};

class CrashCollector {
 public:
  static constexpr size_t kMaxProcesses = 32;  // kept; further ones are counted
  static constexpr size_t kMaxEvidence = 5;

  // One line (any line: those that report no crash are turned away at once).
  void line(std::string_view text, uint64_t line_number, const std::string& file);

  // The crashed processes, one entry each: lines naming a rank only are
  // merged into the process of that rank, and lines naming no process go to
  // the only process named when there is one.
  std::vector<CrashedProcess> processes() const;
  // Distinct processes seen past kMaxProcesses (a lower bound past 65536).
  uint64_t notKept() const { return not_kept_.size(); }

 private:
  CrashedProcess* find(const CrashLine& c);
  std::vector<CrashedProcess> kept_;
  std::unordered_set<std::string> not_kept_;
};

}  // namespace railkit::logs::nccl
