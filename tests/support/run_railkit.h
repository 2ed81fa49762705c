#pragma once
// Runs the railkit binary with an argv (no shell): separate stdout and stderr,
// an optional private TMPDIR (to see what temporary directories it leaves),
// and a deadline after which it is killed, so that a hang fails the test
// instead of stalling the suite.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "support/test_support.h"

namespace railkit::testing {

struct RunResult {
  int exit_code = -1;  // when it exited
  int signal = 0;      // when a signal ended it
  bool timed_out = false;
  std::string out, err;
  // Lines on stderr (a refusal is exactly one).
  int errLines() const {
    int n = 0;
    for (char c : err) n += c == '\n';
    return n;
  }
};

// Starts railkit with `args`; stdout/stderr go to the given fds (or /dev/null
// when -1). TMPDIR is set when `tmpdir` is not empty.
inline pid_t spawnRailkit(const std::vector<std::string>& args, const std::string& tmpdir, int out_fd = -1,
                          int err_fd = -1) {
  pid_t pid = ::fork();
  if (pid != 0) return pid;
  int null_fd = ::open("/dev/null", O_RDWR);
  ::dup2(null_fd, 0);
  ::dup2(out_fd >= 0 ? out_fd : null_fd, 1);
  ::dup2(err_fd >= 0 ? err_fd : null_fd, 2);
  if (!tmpdir.empty()) ::setenv("TMPDIR", tmpdir.c_str(), 1);
  std::string bin = railkitBinary();
  std::vector<char*> argv{bin.data()};
  std::vector<std::string> copy = args;
  for (auto& a : copy) argv.push_back(a.data());
  argv.push_back(nullptr);
  ::execv(bin.c_str(), argv.data());
  ::_exit(127);
}

inline void decodeStatus(int status, RunResult& r) {
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
}

inline RunResult runRailkit(const std::vector<std::string>& args, const std::string& tmpdir = "",
                            int timeout_s = 120) {
  RunResult r;
  int out[2], err[2];
  if (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0) return r;
  pid_t pid = spawnRailkit(args, tmpdir, out[1], err[1]);
  ::close(out[1]);
  ::close(err[1]);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  struct pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
  std::string* sinks[2] = {&r.out, &r.err};
  int open_fds = 2;
  while (open_fds > 0) {
    auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      r.timed_out = true;
      ::kill(pid, SIGKILL);
      break;
    }
    if (::poll(fds, 2, static_cast<int>(left.count())) < 0) continue;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buf[8192];
      ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        sinks[i]->append(buf, static_cast<size_t>(n));
      } else {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  for (auto& f : fds)
    if (f.fd >= 0) ::close(f.fd);
  int status = 0;
  ::waitpid(pid, &status, 0);
  decodeStatus(status, r);
  return r;
}

// Names in `dir` (not recursive), for "nothing left behind" checks.
inline std::vector<std::string> namesIn(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator(dir, ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec))
    names.push_back(it->path().filename().string());
  return names;
}

}  // namespace railkit::testing
