#include "sys/run_command.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/strings.h"

namespace railkit::sys {
namespace {

std::string findInPath(const std::string& name, const std::string& path_env) {
  if (name.find('/') != std::string::npos) return name;
  for (auto dir : split(path_env, ':')) {
    if (dir.empty()) continue;
    std::string candidate = std::string(dir) + "/" + name;
    struct stat st {};
    if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(candidate.c_str(), X_OK) == 0)
      return candidate;
  }
  return "";
}

std::string lastLine(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  auto nl = text.rfind('\n');
  return nl == std::string::npos ? text : text.substr(nl + 1);
}

// Reads both pipes until both close or the deadline passes; false on timeout.
bool drain(int out_fd, int err_fd, std::string& out, std::string& err, const CommandOptions& options) {
  auto deadline = std::chrono::steady_clock::now() + options.timeout;
  pollfd fds[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
  char buffer[65536];
  while (fds[0].fd >= 0 || fds[1].fd >= 0) {
    auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    if (::poll(fds, 2, static_cast<int>(left.count())) < 0 && errno != EINTR) return false;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t n = ::read(fds[i].fd, buffer, sizeof buffer);
      if (n <= 0) {
        fds[i].fd = -1;
        continue;
      }
      std::string& to = i == 0 ? out : err;
      // stderr keeps its tail only; stdout is capped.
      if (i == 0 && to.size() + static_cast<std::size_t>(n) > options.max_stdout) return false;
      to.append(buffer, static_cast<std::size_t>(n));
      if (i == 1 && to.size() > 65536) to.erase(0, to.size() - 65536);
    }
  }
  return true;
}

}  // namespace

Result<std::string> runCommand(const std::vector<std::string>& argv, const CommandOptions& options) {
  if (argv.empty()) return makeError(ErrorCode::kInternal, "runCommand: no program");
  Environment none;
  const Environment& env = options.env ? *options.env : none;
  std::string program = findInPath(argv[0], lookup(env, "PATH").value_or(""));
  if (program.empty()) return makeError(ErrorCode::kNotFound, argv[0] + " not found in PATH");
  int in[2], out[2], err[2];
  if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0)
    return makeError(ErrorCode::kIo, std::string("pipe: ") + std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err[1], 2);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<std::string> env_strings;
  for (const auto& [k, v] : env) env_strings.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (auto& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_t pid = 0;
  int rc = ::posix_spawn(&pid, program.c_str(), &actions, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  for (int fd : {in[0], in[1], out[1], err[1]}) ::close(fd);  // stdin at end of file
  if (rc != 0) {
    ::close(out[0]), ::close(err[0]);
    return makeError(ErrorCode::kIo, program + ": " + std::strerror(rc));
  }
  std::string stdout_text, stderr_text;
  bool finished = drain(out[0], err[0], stdout_text, stderr_text, options);
  ::close(out[0]), ::close(err[0]);
  if (!finished) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!finished)
    return makeError(ErrorCode::kTimeout, argv[0] + " did not finish within " +
                                              std::to_string(options.timeout.count() / 1000) +
                                              " s (or printed more than the cap); killed");
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::string why = WIFEXITED(status) ? "exited " + std::to_string(WEXITSTATUS(status))
                                        : "was killed by signal " + std::to_string(WTERMSIG(status));
    std::string last = lastLine(stderr_text);
    return makeError(ErrorCode::kIo, argv[0] + " " + why + (last.empty() ? "" : ": " + last));
  }
  return stdout_text;
}

}  // namespace railkit::sys
