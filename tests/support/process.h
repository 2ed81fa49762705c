#pragma once
// The one way tests run a process: an argv (no shell unless the test asks
// for `sh -c`), stdout and stderr kept apart (or merged, when the order of
// the two matters), an optional stdin feeder, a deadline after which the
// child's whole process group is killed and the run reported as timed out
// (a hang fails its test instead of stalling the suite), an optional
// private TMPDIR (to see what temporary files a command leaves), and the
// child's peak RSS from wait4.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "support/test_support.h"

namespace railkit::testing {

struct ProcessSpec {
  ProcessSpec() = default;
  explicit ProcessSpec(std::vector<std::string> args) : argv(std::move(args)) {}

  std::vector<std::string> argv;  // argv[0]: a path, or a name looked up in PATH
  // What the child reads on stdin (nothing: /dev/null). `feed` is called
  // on a thread of its own with the pipe's write end and may write as much
  // as it likes; it should stop when a write fails (the child went away).
  std::optional<std::string> input;
  std::function<void(int fd)> feed;
  std::chrono::milliseconds timeout{std::chrono::seconds(120)};
  bool merge_stderr = false;  // stderr into `out`, as `2>&1` would
  // TMPDIR for the child: `tmpdir` when set; else with `private_tmpdir` a
  // fresh directory, removed after the run (what was left: tmp_left).
  std::string tmpdir;
  bool private_tmpdir = false;
  std::vector<std::pair<std::string, std::string>> env;  // set in the child
  std::filesystem::path cwd;                             // empty: this process's

  // For one-expression runs: runProcess(ProcessSpec({"cat"}).withInput("x")).
  ProcessSpec& withTimeout(std::chrono::milliseconds t) {
    timeout = t;
    return *this;
  }
  ProcessSpec& withInput(std::string text) {
    input = std::move(text);
    return *this;
  }
  ProcessSpec& withFeed(std::function<void(int fd)> f) {
    feed = std::move(f);
    return *this;
  }
  ProcessSpec& withEnv(std::string name, std::string value) {
    env.emplace_back(std::move(name), std::move(value));
    return *this;
  }
  ProcessSpec& withPrivateTmpdir() {
    private_tmpdir = true;
    return *this;
  }
  ProcessSpec& withMergedStderr() {
    merge_stderr = true;
    return *this;
  }
};

struct ProcessResult {
  int exit_code = -1;  // when it exited
  int signal = 0;      // when a signal ended it (SIGKILL after a timeout)
  bool timed_out = false;
  bool started = false;  // false: no pipe or no fork
  std::string out, err;
  double seconds = 0;
  long peak_rss_kib = 0;              // ru_maxrss of the child and what it waited for
  std::vector<std::string> tmp_left;  // names left in a private TMPDIR
  // As a shell reports it: 124 for a timeout (as `timeout` does), 128 + N
  // for signal N, else the exit code; -1 when it could not start.
  int status = -1;
  int errLines() const {
    int n = 0;
    for (char c : err) n += c == '\n';
    return n;
  }
  // stderr is one line: what railkit promises for every usage/input error.
  bool oneErrorLine() const { return !err.empty() && err.find('\n') == err.size() - 1; }
};

// Names in `dir` (not recursive), for "nothing left behind" checks.
inline std::vector<std::string> namesIn(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator(dir, ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec))
    names.push_back(it->path().filename().string());
  return names;
}

// A running child. start() then wait(); between them a test may signal it
// (interrupt tests) or watch what it writes to disk.
class Process {
 public:
  explicit Process(ProcessSpec spec) : spec_(std::move(spec)) {}
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;
  ~Process() {
    if (pid_ > 0 && !reaped_) {
      ::kill(-pid_, SIGKILL);
      (void)wait();
    }
  }

  bool start() {
    start_ = std::chrono::steady_clock::now();
    if (spec_.tmpdir.empty() && spec_.private_tmpdir) {
      private_tmp_ = freshTestDir("railkit-proc-tmp-" + std::to_string(serial()++));
      spec_.tmpdir = private_tmp_.string();
    }
    int in[2] = {-1, -1}, out[2], err[2];
    bool feeding = spec_.input || spec_.feed;
    if ((feeding && ::pipe2(in, O_CLOEXEC) != 0) || ::pipe2(out, O_CLOEXEC) != 0 ||
        ::pipe2(err, O_CLOEXEC) != 0)
      return false;
    if (feeding) ::signal(SIGPIPE, SIG_IGN);  // a child that stops reading ends the feeder's writes, not us
    prepareExec();
    pid_ = ::fork();
    if (pid_ < 0) return false;
    if (pid_ == 0) exec(in[0], out[1], spec_.merge_stderr ? out[1] : err[1]);
    ::setpgid(pid_, pid_);  // as the child does: whichever runs first, a timeout finds the group
    result_.started = true;
    ::close(out[1]);
    ::close(err[1]);
    out_fd_ = out[0];
    err_fd_ = err[0];
    if (feeding) {
      ::close(in[0]);
      feeder_ = std::thread([this, fd = in[1]] {
        if (spec_.feed) {
          spec_.feed(fd);
        } else {
          writeAll(fd, *spec_.input);
        }
        ::close(fd);
      });
    }
    return true;
  }

  pid_t pid() const { return pid_; }
  // Whether it has ended (reaps it then; wait() still reports it).
  bool running() {
    if (reaped_ || pid_ <= 0) return false;
    return !reap(WNOHANG);
  }

  // Collects stdout and stderr until both close, then waits for the child,
  // all within the deadline; past it the process group is killed.
  ProcessResult wait() {
    if (pid_ <= 0) return std::move(result_);
    auto deadline = start_ + spec_.timeout;
    collect(deadline);
    while (!reaped_ && !reap(WNOHANG)) {
      if (std::chrono::steady_clock::now() >= deadline) killForTimeout();
      std::this_thread::sleep_for(std::chrono::milliseconds(2));  // no fd to wait on once the pipes closed
    }
    if (feeder_.joinable()) feeder_.join();
    if (result_.timed_out) {
      result_.status = 124;
    } else {
      result_.status = result_.signal != 0 ? 128 + result_.signal : result_.exit_code;
    }
    result_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    if (!private_tmp_.empty()) {
      result_.tmp_left = namesIn(private_tmp_);
      std::error_code ec;
      std::filesystem::remove_all(private_tmp_, ec);
    }
    return std::move(result_);
  }

  static void writeAll(int fd, const std::string& text) {
    std::size_t done = 0;
    while (done < text.size()) {
      ssize_t n = ::write(fd, text.data() + done, text.size() - done);
      if (n <= 0) return;
      done += static_cast<std::size_t>(n);
    }
  }

 private:
  static std::atomic<int>& serial() {
    static std::atomic<int> n{0};
    return n;
  }

  // argv and the environment are built before fork(): the child of a
  // threaded test (e2e runs ranks from threads) only dups and execs.
  void prepareExec() {
    for (auto& a : spec_.argv) argv_.push_back(a.data());
    argv_.push_back(nullptr);
    auto overridden = [this](std::string_view entry) {
      auto name = entry.substr(0, entry.find('='));
      if (!spec_.tmpdir.empty() && name == "TMPDIR") return true;
      for (const auto& e : spec_.env)
        if (e.first == name) return true;
      return false;
    };
    for (char** e = environ; *e != nullptr; ++e)
      if (!overridden(*e)) env_text_.emplace_back(*e);
    if (!spec_.tmpdir.empty()) env_text_.push_back("TMPDIR=" + spec_.tmpdir);
    for (const auto& [name, value] : spec_.env) env_text_.push_back(name + "=" + value);
    for (auto& e : env_text_) envp_.push_back(e.data());
    envp_.push_back(nullptr);
  }

  [[noreturn]] void exec(int in_fd, int out_fd, int err_fd) {
    ::setpgid(0, 0);  // its own group: a timeout kills what a shell started too
    int null_fd = ::open("/dev/null", O_RDWR);
    ::dup2(in_fd >= 0 ? in_fd : null_fd, 0);
    ::dup2(out_fd, 1);
    ::dup2(err_fd, 2);
    if (!spec_.cwd.empty() && ::chdir(spec_.cwd.c_str()) != 0) ::_exit(126);
    ::execvpe(argv_[0], argv_.data(), envp_.data());
    ::_exit(127);
  }

  void collect(std::chrono::steady_clock::time_point deadline) {
    pollfd fds[2] = {{out_fd_, POLLIN, 0}, {err_fd_, POLLIN, 0}};
    std::string* sinks[2] = {&result_.out, &result_.err};
    int open_fds = 2;
    while (open_fds > 0) {
      // Rounded up: a poll that wakes a fraction of a millisecond early must
      // not end the run before its deadline.
      auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        killForTimeout();
        break;
      }
      if (::poll(fds, 2, static_cast<int>(left.count())) < 0) continue;
      for (int i = 0; i < 2; ++i) {
        if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        char buf[8192];
        ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
        if (n > 0) {
          sinks[i]->append(buf, static_cast<std::size_t>(n));
        } else {
          ::close(fds[i].fd);
          fds[i].fd = -1;
          --open_fds;
        }
      }
    }
    for (auto& f : fds)
      if (f.fd >= 0) ::close(f.fd);
  }

  void killForTimeout() {
    if (result_.timed_out) return;
    result_.timed_out = true;
    ::kill(-pid_, SIGKILL);
    ::kill(pid_, SIGKILL);  // in case it had not yet made its group
  }

  bool reap(int flags) {
    int status = 0;
    struct rusage ru {};
    if (::wait4(pid_, &status, flags, &ru) != pid_) return false;
    reaped_ = true;
    if (WIFEXITED(status)) result_.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) result_.signal = WTERMSIG(status);
    result_.peak_rss_kib = ru.ru_maxrss;
    return true;
  }

  ProcessSpec spec_;
  ProcessResult result_;
  pid_t pid_ = -1;
  bool reaped_ = false;
  int out_fd_ = -1, err_fd_ = -1;
  std::thread feeder_;
  std::chrono::steady_clock::time_point start_;
  std::filesystem::path private_tmp_;
  std::vector<char*> argv_, envp_;
  std::vector<std::string> env_text_;
};

inline ProcessResult runProcess(ProcessSpec spec) {
  Process p(std::move(spec));
  if (!p.start()) return {};
  return p.wait();
}

enum class Stderr { kApart, kMerged };  // kMerged: into `out`, as `2>&1` would

// `script` run by sh -c (pipes, redirections, variables, `exec`), under the
// same deadline and capture.
inline ProcessResult runShell(const std::string& script, int timeout_s = 60,
                              Stderr stderr_to = Stderr::kApart) {
  ProcessSpec spec({"sh", "-c", script});
  spec.timeout = std::chrono::seconds(timeout_s);
  spec.merge_stderr = stderr_to == Stderr::kMerged;
  return runProcess(std::move(spec));
}

// `args` is shell text after "railkit " (quotes, redirections).
inline ProcessResult runRailkit(const std::string& args, int timeout_s = 60) {
  return runShell("exec " + railkitBinary() + " " + args, timeout_s);
}

// railkit with an argv, no shell; TMPDIR set when `tmpdir` is not empty.
inline ProcessResult runRailkitArgv(const std::vector<std::string>& args, const std::string& tmpdir = "",
                                    int timeout_s = 120) {
  ProcessSpec spec;
  spec.argv = {railkitBinary()};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.tmpdir = tmpdir;
  spec.timeout = std::chrono::seconds(timeout_s);
  return runProcess(std::move(spec));
}

}  // namespace railkit::testing
