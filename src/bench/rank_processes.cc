// Forked ranks and their supervision (see rank_processes.h).
#include "bench/rank_processes.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "bench/nccl/nccl_api.h"
#ifdef RAILKIT_HAVE_UCX
#include "bench/ucx/ucx_api.h"
#endif

namespace railkit::bench {

Result<std::vector<pid_t>> forkRanks(int count, const std::function<int(int index)>& rank_main) {
  std::vector<pid_t> children;
  for (int i = 0; i < count; ++i) {
    std::fflush(nullptr);
    pid_t pid = fork();
    if (pid < 0) {
      int saved = errno;
      for (pid_t child : children) kill(child, SIGTERM);
      for (pid_t child : children) waitpid(child, nullptr, 0);
      return makeError(ErrorCode::kIo, std::string("fork failed: ") + std::strerror(saved));
    }
    if (pid == 0) {
      int code = rank_main(i);
      std::fflush(nullptr);
      _exit(code);
    }
    children.push_back(pid);
  }
  return children;
}

int superviseRanks(const std::vector<pid_t>& children, const SuperviseStatuses& statuses) {
  int worst = statuses.ok;
  std::size_t running = children.size();
  bool stopping = false;
  while (running > 0) {
    int status = 0;
    pid_t pid = waitpid(-1, &status, 0);
    if (pid < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (std::find(children.begin(), children.end(), pid) == children.end()) continue;
    --running;
    // A rank we stopped says nothing about the run; the one that failed does.
    if (stopping && WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) continue;
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : statuses.crashed;
    worst = std::max(worst, code);
    if (code >= statuses.fatal && running > 0 && !stopping) {
      stopping = true;
      for (pid_t child : children) kill(child, SIGTERM);
    }
  }
  return worst;
}

namespace {

// Runs `probe` in a forked child and brings its error message back through a pipe.
Status probeInChild(const std::function<Status()>& probe, const char* crashed) {
  int fds[2];
  if (pipe(fds) != 0) return makeError(ErrorCode::kIo, std::string("pipe: ") + std::strerror(errno));
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid < 0) {
    int saved = errno;
    close(fds[0]);
    close(fds[1]);
    return makeError(ErrorCode::kIo, std::string("fork failed: ") + std::strerror(saved));
  }
  if (pid == 0) {
    close(fds[0]);
    auto s = probe();
    std::string msg = s ? "" : s.error().message;
    [[maybe_unused]] ssize_t n = write(fds[1], msg.data(), msg.size());
    _exit(s ? 0 : 1);
  }
  close(fds[1]);
  std::string msg;
  char buf[512];
  for (ssize_t got; (got = read(fds[0], buf, sizeof buf)) > 0;)
    msg.append(buf, static_cast<std::size_t>(got));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return okStatus();
  return makeError(ErrorCode::kUnavailable, msg.empty() ? crashed : msg);
}

}  // namespace

Status probeNcclInChild(const std::string& nccl_lib_dir, int gpus_needed) {
  return probeInChild([&] { return nccl::probeNccl(nccl_lib_dir, gpus_needed); },
                      "nccl backend: the library probe crashed");
}

Status probeUcxInChild([[maybe_unused]] const std::string& ucx_lib_dir) {
#ifdef RAILKIT_HAVE_UCX
  return probeInChild(
      [&]() -> Status {
        auto lib = ucx::loadUcx(ucx_lib_dir);
        if (!lib) return tl::unexpected(lib.error());
        return okStatus();
      },
      "ucx backend: the library probe crashed");
#else
  return okStatus();
#endif
}

}  // namespace railkit::bench
