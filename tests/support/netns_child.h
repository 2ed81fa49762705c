#pragma once
// A child process in a network namespace of its own (unshare(CLONE_NEWNET)),
// alive until the object is destroyed: tests that enter another namespace
// (setns) need one that some process holds. No name, no mount: the namespace
// goes away with the child, so nothing is left behind if the test dies.
// Needs root (CAP_SYS_ADMIN); ok() is false otherwise and why() says so.

#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace railkit::testing {

class NetnsChild {
 public:
  NetnsChild() {
    int fds[2];
    if (::pipe(fds) != 0) {
      why_ = std::string("pipe: ") + std::strerror(errno);
      return;
    }
    pid_ = ::fork();
    if (pid_ == 0) {
      ::close(fds[0]);
      char result = ::unshare(CLONE_NEWNET) == 0 ? 'y' : 'n';
      (void)!::write(fds[1], &result, 1);
      ::close(fds[1]);
      // Killed by the destructor; the alarm ends it if the test is killed first.
      ::alarm(120);
      for (;;) ::pause();
    }
    ::close(fds[1]);
    char result = 0;
    ssize_t n = ::read(fds[0], &result, 1);
    ::close(fds[0]);
    if (pid_ < 0)
      why_ = std::string("fork: ") + std::strerror(errno);
    else if (n != 1 || result != 'y')
      why_ = "unshare(CLONE_NEWNET) refused (needs root)";
  }
  ~NetnsChild() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  NetnsChild(const NetnsChild&) = delete;
  NetnsChild& operator=(const NetnsChild&) = delete;

  bool ok() const { return pid_ > 0 && why_.empty(); }
  const std::string& why() const { return why_; }
  int pid() const { return pid_; }

 private:
  int pid_ = -1;
  std::string why_;
};

}  // namespace railkit::testing
