#include "core/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace railkit {

std::string describeFileType(unsigned mode) {
  switch (mode & S_IFMT) {
    case S_IFREG: return "a regular file";
    case S_IFDIR: return "a directory";
    case S_IFIFO: return "a FIFO";
    case S_IFCHR: return "a character device";
    case S_IFBLK: return "a block device";
    case S_IFSOCK: return "a socket";
    case S_IFLNK: return "a symlink";
    default: return "an unknown kind of file";
  }
}

std::string formatByteLimit(std::size_t bytes) {
  if (bytes >= (1u << 20) && bytes % (1u << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  if (bytes >= (1u << 10) && bytes % (1u << 10) == 0) return std::to_string(bytes >> 10) + " KiB";
  return std::to_string(bytes) + " bytes";
}

namespace {

// "manifest a.yaml", or the path alone when the caller names no kind.
std::string displayName(const std::string& path, const InputFileOptions& options) {
  return options.what.empty() ? path : options.what + " " + path;
}

// Reads fd to its end, refusing more than max_bytes. A pipe's writer may be
// slow; reads block as cat's do, but never past the cap.
Result<std::string> readCapped(int fd, const std::string& path, const InputFileOptions& options) {
  std::string text;
  char buf[1 << 16];
  while (true) {
    ssize_t got = ::read(fd, buf, sizeof buf);
    if (got < 0) {
      if (errno == EINTR) continue;
      return makeError(ErrorCode::kIo, displayName(path, options) + ": read error: " + std::strerror(errno));
    }
    if (got == 0) break;
    if (text.size() + static_cast<std::size_t>(got) > options.max_bytes) {
      return makeError(ErrorCode::kInvalidInput, displayName(path, options) + ": larger than " +
                                                     formatByteLimit(options.max_bytes) + ", not read");
    }
    text.append(buf, static_cast<std::size_t>(got));
  }
  return text;
}

}  // namespace

Result<int> openInputFile(const std::string& path, const InputFileOptions& options) {
  const std::string name = displayName(path, options);
  // O_NONBLOCK: opening a FIFO that has no writer must not wait for one; the
  // type check below refuses it anyway.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    int err = errno;
    if (err == ENOENT || err == ENOTDIR) return makeError(ErrorCode::kNotFound, name + ": no such file");
    return makeError(ErrorCode::kIo, name + ": cannot open: " + std::strerror(err));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    return makeError(ErrorCode::kIo, name + ": cannot stat: " + std::strerror(err));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    std::string expected = options.allow_stdin ? "a regular file or - for standard input" : "a regular file";
    std::string hint =
        options.allow_stdin && S_ISFIFO(st.st_mode) ? " (to read a pipe, give - and redirect it)" : "";
    return makeError(ErrorCode::kInvalidInput,
                     name + ": expected " + expected + ", found " + describeFileType(st.st_mode) + hint);
  }
  if (static_cast<std::size_t>(st.st_size) > options.max_bytes) {
    ::close(fd);
    return makeError(ErrorCode::kInvalidInput, name + ": " + std::to_string(st.st_size) +
                                                   " bytes, larger than the " +
                                                   formatByteLimit(options.max_bytes) + " limit, not read");
  }
  // Regular reads block as usual (some file systems honour O_NONBLOCK).
  int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) (void)::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  return fd;
}

Result<std::string> readInputFile(const std::string& path, const InputFileOptions& options) {
  if (path == "-" && options.allow_stdin) return readCapped(STDIN_FILENO, "<stdin>", options);
  auto fd = openInputFile(path, options);
  if (!fd) return tl::unexpected(fd.error());
  auto text = readCapped(*fd, path, options);
  ::close(*fd);
  return text;
}

}  // namespace railkit
