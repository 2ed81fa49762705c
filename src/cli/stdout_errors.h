#pragma once
// Why a write to stdout failed, kept for stdoutWritten's message. glibc sets
// errno only in the write that fails: a large result to a full disk fails
// inside fwrite, and the final fflush, with nothing left to write, returns 0
// and leaves errno to whatever ran since. So std::cout writes through this
// buffer for the run of a command: it goes to stdio exactly as the standard
// synchronised buffer does (printf and std::cout still interleave) and keeps
// the errno of the first write that failed.

#include <streambuf>

namespace railkit::cli {

class StdoutWithErrors final : public std::streambuf {
 public:
  // 0 while every write succeeded.
  int firstError() const { return first_error_; }

 protected:
  int_type overflow(int_type c) override;
  std::streamsize xsputn(const char* data, std::streamsize n) override;
  int sync() override;

 private:
  void noteFailure();
  int first_error_ = 0;
};

// Installs a StdoutWithErrors as std::cout's buffer for its lifetime and puts
// the previous one back (flushed) when it ends.
class StdoutErrorsScope {
 public:
  StdoutErrorsScope();
  ~StdoutErrorsScope();
  StdoutErrorsScope(const StdoutErrorsScope&) = delete;
  StdoutErrorsScope& operator=(const StdoutErrorsScope&) = delete;

 private:
  StdoutWithErrors buffer_;
  std::streambuf* previous_;
};

// The errno of the first failed write to std::cout while a StdoutErrorsScope
// is installed; otherwise (unit tests) errno as it is now, the best guess left.
int stdoutWriteErrno();

}  // namespace railkit::cli
