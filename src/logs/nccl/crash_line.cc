// Crash lines of a job log (crash_line.h): each form by the program that
// prints it, who printed it from the tags in front of it, and the grouping
// by process.
#include "logs/nccl/crash_line.h"

#include <algorithm>

#include "logs/nccl/text.h"

namespace railkit::logs::nccl {
namespace {

struct SignalInfo {
  int number;
  std::string_view name, description;
};

// The signals a crashed or killed process reports, with the words the
// shell, Open MPI and Python print for them.
constexpr SignalInfo kSignals[] = {
    {1, "SIGHUP", "hangup"},
    {2, "SIGINT", "interrupt"},
    {3, "SIGQUIT", "quit"},
    {4, "SIGILL", "illegal instruction"},
    {5, "SIGTRAP", "trace/breakpoint trap"},
    {6, "SIGABRT", "aborted"},
    {7, "SIGBUS", "bus error"},
    {8, "SIGFPE", "floating point exception"},
    {9, "SIGKILL", "killed"},
    {11, "SIGSEGV", "segmentation fault"},
    {13, "SIGPIPE", "broken pipe"},
    {15, "SIGTERM", "terminated"},
};

char lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c;
}

bool startsWithNoCase(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i)
    if (lower(s[i]) != lower(prefix[i])) return false;
  return true;
}

// The signal the words at the start of `s` name: "Segmentation fault",
// "Aborted", "SIGSEGV", ... (any case).
std::optional<int> signalFromWords(std::string_view s) {
  s = trimView(s);
  for (const auto& sig : kSignals)
    if (startsWithNoCase(s, sig.description) || startsWith(s, sig.name)) return sig.number;
  return std::nullopt;
}

std::optional<int> signalNumber(std::string_view s) {
  auto n = numberAfter(s, "");
  if (!n || *n == 0 || *n > 64) return std::nullopt;
  return static_cast<int>(*n);
}

bool hostChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || isDigit(c) || c == '-' || c == '.' || c == '_';
}

// `host:pid` with optional `:n` or ` :n` fields after (UCX's thread index
// and id): the content of Open MPI's and UCX's `[...]` tag.
bool hostPid(std::string_view content, CrashLine& out) {
  size_t colon = content.find(':');
  if (colon == std::string_view::npos || colon == 0) return false;
  std::string_view host = content.substr(0, colon);
  bool letters = false;
  for (char c : host) {
    if (!hostChar(c)) return false;
    letters = letters || !(isDigit(c) || c == '.');
  }
  if (!letters) return false;  // "[12:34:56]" is a time, not a host
  std::string_view rest = content.substr(colon + 1);
  if (rest.empty() || !isDigit(rest.front())) return false;
  for (char c : rest)
    if (!isDigit(c) && c != ':' && c != ' ') return false;
  out.host = host;
  out.pid = numberAfter(rest, "");
  return true;
}

// mpirun --tag-output's `[1,3]` (job, rank) and torchrun's `[rank3]`.
bool rankTag(std::string_view content, CrashLine& out) {
  if (startsWith(content, "rank"))
    content.remove_prefix(4);
  else if (size_t comma = content.find(','); comma != std::string_view::npos && comma > 0)
    content.remove_prefix(comma + 1);
  else
    return false;
  if (content.empty()) return false;
  for (char c : content)
    if (!isDigit(c)) return false;
  out.rank = numberAfter(content, "");
  return true;
}

// NCCL's `host:pid:tid [dev]` header ending `pre`.
void ncclHeader(std::string_view pre, CrashLine& out) {
  pre = trimView(pre);
  if (pre.size() < 4 || pre.back() != ']') return;
  size_t open = pre.rfind(" [");
  if (open == std::string_view::npos) return;
  for (char c : pre.substr(open + 2, pre.size() - open - 3))
    if (!isDigit(c)) return;
  std::string_view token = pre.substr(0, open);
  size_t space = token.find_last_of(" >]");
  if (space != std::string_view::npos) token.remove_prefix(space + 1);
  size_t tid = token.rfind(':');
  if (tid == std::string_view::npos) return;
  CrashLine probe;
  if (hostPid(token.substr(0, tid), probe)) out.host = probe.host, out.pid = probe.pid;
}

// Who printed the crash words at `at`: the tags in front of them, nearest
// first (lines of several processes interleave: `[a:1] [ 5] [b:2] *** ...`
// is b's).
void identify(std::string_view text, size_t at, CrashLine& out) {
  std::string_view pre = text.substr(0, at);
  size_t end = pre.size();
  for (int groups = 0; groups < 6 && end > 0; ++groups) {
    size_t close = pre.rfind(']', end - 1);
    if (close == std::string_view::npos) break;
    size_t open = pre.rfind('[', close);
    if (open == std::string_view::npos) break;
    std::string_view content = pre.substr(open + 1, close - open - 1);
    CrashLine probe;
    if (!out.pid && hostPid(content, probe)) out.host = probe.host, out.pid = probe.pid;
    if (!out.rank && rankTag(content, probe)) out.rank = probe.rank;
    end = open;
  }
  if (!out.pid) ncclHeader(pre, out);
}

// Open MPI's mpirun and prterun: "... noticed that process rank 48 with PID
// 613162 on node gpu-node07 exited on signal 11 (Segmentation fault)."; a
// paste may wrap the line after "exited on".
std::optional<CrashLine> launcherSummary(std::string_view text, size_t at) {
  std::string_view rest = text.substr(at);
  bool on_signal = has(rest, " exited on signal ");
  std::string_view trimmed = trimView(rest);
  bool wrapped = trimmed.size() >= 9 && trimmed.substr(trimmed.size() - 9) == "exited on";
  if (!on_signal && !wrapped) return std::nullopt;
  CrashLine out;
  out.launcher = true;
  out.rank = numberAfter(rest, "process rank ");
  out.pid = numberAfter(rest, " with PID ");
  out.host = tokenAfter(rest, " on node ", " ");
  if (on_signal) out.signal = signalNumber(rest.substr(findIn(rest, " exited on signal ") + 18));
  return out;
}

// torchrun's agent: "failed (exitcode: -11) local_rank: 2 (pid: 4677) of
// binary: ..."; a negative exit code is the signal that ended the worker.
std::optional<CrashLine> torchrunSummary(std::string_view text, size_t at) {
  CrashLine out;
  out.launcher = true;
  out.signal = signalNumber(text.substr(at + 12));  // after "(exitcode: -"
  if (!out.signal) return std::nullopt;
  out.local_rank = numberAfter(text, "local_rank:");
  out.pid = numberAfter(text, "(pid:");
  return out;
}

size_t tokenAt(std::string_view text, std::string_view word) {
  for (size_t at = findIn(text, word); at != std::string_view::npos; at = findIn(text, word, at + 1))
    if (at == 0 || text[at - 1] == ' ' || text[at - 1] == ']' || text[at - 1] == ':' || text[at - 1] == '\t')
      return at;
  return std::string_view::npos;
}

// The crash words of a process reporting its own death, and where they start.
std::optional<CrashLine> selfReport(std::string_view text, size_t* where) {
  CrashLine out;
  size_t at;
  auto found = [&](size_t position) {
    *where = position;
    return out;
  };
  // UCX: "Caught signal 11 (Segmentation fault: address not mapped ...)".
  if ((at = findIn(text, "Caught signal ")) != std::string_view::npos) {
    out.signal = signalNumber(text.substr(at + 14));
    if (out.signal) return found(at);
  }
  // Open MPI's handler: its block's first line, its `Signal:` line, its last.
  if ((at = findIn(text, "*** Process received signal ***")) != std::string_view::npos) return found(at);
  if ((at = findIn(text, "*** End of error message ***")) != std::string_view::npos) return found(at);
  if ((at = tokenAt(text, "Signal: ")) != std::string_view::npos) {
    std::string_view rest = trimView(text.substr(at + 8));
    size_t open = rest.rfind('(');
    if (open != std::string_view::npos && rest.back() == ')') {
      out.signal = signalNumber(rest.substr(open + 1));
      if (out.signal) return found(at);
    }
  }
  // abseil: "*** SIGSEGV received at time=..."; glog: "*** SIGSEGV (@0x0) received by PID 12 ...".
  if ((at = findIn(text, "*** SIG")) != std::string_view::npos && has(text.substr(at), " received ")) {
    out.signal = signalFromWords(text.substr(at + 4));
    out.pid = numberAfter(text, "received by PID ");
    if (out.signal) return found(at);
  }
  // torchrun's error record: "Signal 11 (SIGSEGV) received by PID 4677".
  if ((at = tokenAt(text, "Signal ")) != std::string_view::npos &&
      has(text.substr(at), ") received by PID ")) {
    out.signal = signalNumber(text.substr(at + 7));
    out.pid = numberAfter(text, "received by PID ");
    if (out.signal) return found(at);
  }
  if ((at = findIn(text, "Fatal Python error: ")) != std::string_view::npos) {
    out.signal = signalFromWords(text.substr(at + 20));  // none for other fatal errors: still a death
    return found(at);
  }
  if ((at = findIn(text, "terminate called after throwing")) != std::string_view::npos ||
      (at = findIn(text, "terminate called without an active exception")) != std::string_view::npos) {
    out.signal = 6;  // std::terminate aborts
    return found(at);
  }
  // The shell: "Segmentation fault (core dumped)", "bash: line 1: 1234 Aborted (core dumped) ./prog",
  // zsh's "zsh: segmentation fault (core dumped)  prog".
  if ((at = findIn(text, "(core dumped)")) != std::string_view::npos) {
    std::string_view before = trimView(text.substr(0, at));
    for (const auto& sig : kSignals) {
      size_t n = sig.description.size();
      if (before.size() >= n && startsWithNoCase(before.substr(before.size() - n), sig.description)) {
        out.signal = sig.number;
        return found(before.size() - n);
      }
    }
    return found(at);
  }
  // The shell without a core: the whole line, or bash's "line 3: 1234 Segmentation fault      ./prog".
  for (int sig : {11, 7}) {
    std::string_view words = sig == 11 ? "Segmentation fault" : "Bus error";
    if ((at = findIn(text, words)) == std::string_view::npos) continue;
    std::string_view before = trimView(text.substr(0, at));
    bool alone = before.empty() && trimView(text.substr(at + words.size())).empty();
    size_t digits = before.size();
    while (digits > 0 && isDigit(before[digits - 1])) --digits;
    bool job_report = digits < before.size() && has(before, "line ");
    if (alone || job_report) {
      out.signal = sig;
      if (job_report) out.pid = numberAfter(before.substr(digits), "");
      return found(at);
    }
  }
  return std::nullopt;
}

}  // namespace

bool mentionsCrash(std::string_view text) {
  return has(text, "ignal") || has(text, "***") || has(text, "ore dumped") || has(text, "Fatal Python") ||
         has(text, "terminate called") || has(text, "exitcode: -") || has(text, "egmentation fault") ||
         has(text, "Bus error") || has(text, "exited on");
}

std::optional<CrashLine> parseCrashLine(std::string_view text) {
  if (!mentionsCrash(text)) return std::nullopt;
  size_t at = findIn(text, "noticed that process rank ");
  if (at != std::string_view::npos) return launcherSummary(text, at);
  if ((at = findIn(text, "(exitcode: -")) != std::string_view::npos && has(text, "local_rank"))
    return torchrunSummary(text, at);
  size_t where = 0;
  auto out = selfReport(text, &where);
  if (out) identify(text, where, *out);
  return out;
}

std::string_view signalName(int signal) {
  for (const auto& sig : kSignals)
    if (sig.number == signal) return sig.name;
  return {};
}

std::string_view signalDescription(int signal) {
  for (const auto& sig : kSignals)
    if (sig.number == signal) return sig.description;
  return {};
}

namespace {

// Short names match long ones: mpirun may name a node by its FQDN where the
// process' tag has the short name.
std::string_view shortHost(std::string_view host) {
  size_t dot = host.find('.');
  return dot == std::string_view::npos || isDigit(host.front()) ? host : host.substr(0, dot);
}

bool sameProcess(const CrashedProcess& p, const CrashLine& c) {
  if (c.pid) {
    if (p.pid != c.pid) return false;
    return p.host.empty() || c.host.empty() || shortHost(p.host) == shortHost(c.host);
  }
  if (c.rank) return p.rank == c.rank;
  if (c.local_rank) return p.local_rank == c.local_rank && !p.pid;
  return !p.pid && !p.rank && !p.local_rank;  // a line naming no process joins the unnamed one
}

void fill(CrashedProcess& p, const CrashLine& c) {
  if (p.host.empty() && !c.host.empty()) p.host = bounded(c.host, 128);
  if (!p.pid) p.pid = c.pid;
  if (!p.rank) p.rank = c.rank;
  if (!p.local_rank) p.local_rank = c.local_rank;
  if (!p.signal) p.signal = c.signal;
  p.launcher = p.launcher || c.launcher;
}

// Moves `from`'s lines into `into` (evidence kept in line order, capped).
void merge(CrashedProcess& into, const CrashedProcess& from, bool with_signal) {
  if (into.host.empty()) into.host = from.host;
  if (!into.pid) into.pid = from.pid;
  if (!into.rank) into.rank = from.rank;
  if (!into.local_rank) into.local_rank = from.local_rank;
  if (with_signal && !into.signal) into.signal = from.signal;
  into.launcher = into.launcher || from.launcher;
  into.lines += from.lines;
  if (from.first_line < into.first_line) {
    into.first_line = from.first_line;
    into.headline = from.headline;
  }
  into.evidence.insert(into.evidence.end(), from.evidence.begin(), from.evidence.end());
  std::stable_sort(into.evidence.begin(), into.evidence.end(),
                   [](const Evidence& a, const Evidence& b) { return a.line < b.line; });
  if (into.evidence.size() > CrashCollector::kMaxEvidence) into.evidence.resize(CrashCollector::kMaxEvidence);
}

}  // namespace

CrashedProcess* CrashCollector::find(const CrashLine& c) {
  for (auto& p : kept_)
    if (sameProcess(p, c)) return &p;
  return nullptr;
}

void CrashCollector::line(std::string_view text, uint64_t line_number, const std::string& file) {
  auto c = parseCrashLine(text);
  if (!c) return;
  CrashedProcess* p = find(*c);
  if (!p) {
    if (kept_.size() >= kMaxProcesses) {
      constexpr size_t kMaxCounted = size_t{1} << 16;
      if (not_kept_.size() < kMaxCounted)
        not_kept_.insert(std::string(c->host) + ":" + std::to_string(c->pid.value_or(0)) + ":" +
                         std::to_string(c->rank.value_or(0)) + ":" +
                         std::to_string(c->local_rank.value_or(0)));
      return;
    }
    kept_.emplace_back();
    p = &kept_.back();
    p->headline = bounded(trimView(text), 300);
    p->first_line = line_number;
  }
  fill(*p, *c);
  ++p->lines;
  if (p->evidence.size() < kMaxEvidence)
    p->evidence.push_back(Evidence{file, static_cast<long>(line_number), bounded(trimView(text))});
}

std::vector<CrashedProcess> CrashCollector::processes() const {
  std::vector<CrashedProcess> named, unnamed;
  for (const auto& p : kept_) (p.pid || p.rank || p.local_rank ? named : unnamed).push_back(p);
  // A process known by its rank alone (a rank-tagged line) is the process
  // the launcher's summary names with that rank.
  for (size_t i = 0; i < named.size(); ++i) {
    if (named[i].pid || !named[i].rank) continue;
    for (size_t j = 0; j < named.size(); ++j)
      if (j != i && named[j].pid && named[j].rank == named[i].rank) {
        merge(named[j], named[i], true);
        named.erase(named.begin() + static_cast<long>(i--));
        break;
      }
  }
  // Lines that name no process: the only named one is theirs; with several,
  // they are kept with the first (their signal is not given to it) rather
  // than counted as one more crash.
  for (const auto& u : unnamed) {
    if (named.empty()) {
      named.push_back(u);
      continue;
    }
    merge(named.front(), u, named.size() == 1);
  }
  std::sort(named.begin(), named.end(),
            [](const CrashedProcess& a, const CrashedProcess& b) { return a.first_line < b.first_line; });
  return named;
}

}  // namespace railkit::logs::nccl
