#include "cli/stdout_errors.h"

#include <cerrno>
#include <cstdio>
#include <iostream>

namespace railkit::cli {

StdoutWithErrors::int_type StdoutWithErrors::overflow(int_type c) {
  if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
  if (std::fputc(traits_type::to_char_type(c), stdout) == EOF) {
    noteFailure();
    return traits_type::eof();
  }
  return c;
}

std::streamsize StdoutWithErrors::xsputn(const char* data, std::streamsize n) {
  if (n <= 0) return 0;
  std::size_t written = std::fwrite(data, 1, static_cast<std::size_t>(n), stdout);
  if (written < static_cast<std::size_t>(n)) noteFailure();
  return static_cast<std::streamsize>(written);
}

int StdoutWithErrors::sync() {
  if (std::fflush(stdout) == 0) return 0;
  noteFailure();
  return -1;
}

void StdoutWithErrors::noteFailure() {
  if (first_error_ == 0) first_error_ = errno;
}

StdoutErrorsScope::StdoutErrorsScope() : previous_(std::cout.rdbuf(&buffer_)) {}

StdoutErrorsScope::~StdoutErrorsScope() {
  std::cout.flush();
  std::cout.rdbuf(previous_);
}

int stdoutWriteErrno() {
  if (auto* recorded = dynamic_cast<StdoutWithErrors*>(std::cout.rdbuf()); recorded != nullptr)
    return recorded->firstError();
  return errno;
}

}  // namespace railkit::cli
