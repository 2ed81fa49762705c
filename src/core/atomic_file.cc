#include "core/atomic_file.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace railkit {
namespace {

std::string dirOf(const std::string& path) {
  auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string nameOf(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

Result<AtomicFile> AtomicFile::create(const std::string& path, std::string what, ExistingFile existing) {
  if (path.empty() || path.back() == '/')
    return makeError(ErrorCode::kUsage, what + ": expected a file name, found '" + path + "'");
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode))
      return makeError(ErrorCode::kUsage, what + " " + path + ": is a directory, expected a file name");
    if (existing == ExistingFile::kRefuse)
      return makeError(ErrorCode::kUsage, what + " " + path + ": already exists (remove it or pass --force)");
  }
  AtomicFile file;
  file.path_ = path;
  file.what_ = std::move(what);
  file.existing_ = existing;
  std::string tmpl = dirOf(path) + "/." + nameOf(path) + ".tmp-XXXXXX";
  int fd = ::mkostemp(tmpl.data(), O_CLOEXEC);
  if (fd < 0) {
    return makeError(ErrorCode::kIo, file.what_ + " " + path + ": cannot create a file in " + dirOf(path) +
                                         ": " + std::strerror(errno));
  }
  // mkostemp makes 0600; results are ordinary files others may read.
  (void)::fchmod(fd, 0644);
  file.fd_ = fd;
  file.temp_ = tmpl;
  return file;
}

AtomicFile::AtomicFile(AtomicFile&& other) noexcept
    : path_(std::move(other.path_)),
      temp_(std::move(other.temp_)),
      what_(std::move(other.what_)),
      existing_(other.existing_),
      fd_(other.fd_) {
  other.fd_ = -1;
  other.temp_.clear();
}

AtomicFile& AtomicFile::operator=(AtomicFile&& other) noexcept {
  if (this != &other) {
    discard();
    path_ = std::move(other.path_);
    temp_ = std::move(other.temp_);
    what_ = std::move(other.what_);
    existing_ = other.existing_;
    fd_ = other.fd_;
    other.fd_ = -1;
    other.temp_.clear();
  }
  return *this;
}

AtomicFile::~AtomicFile() {
  discard();
}

void AtomicFile::discard() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!temp_.empty()) ::unlink(temp_.c_str());
  temp_.clear();
}

Status AtomicFile::write(std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = ::write(fd_, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return makeError(ErrorCode::kIo, what_ + " " + path_ + ": write failed: " + std::strerror(errno));
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return okStatus();
}

Status AtomicFile::commit() {
  if (fd_ < 0) return makeError(ErrorCode::kInternal, what_ + " " + path_ + ": committed twice");
  if (::fsync(fd_) != 0 && errno != EINVAL) {
    int err = errno;
    discard();
    return makeError(ErrorCode::kIo, what_ + " " + path_ + ": write failed: " + std::strerror(err));
  }
  ::close(fd_);
  fd_ = -1;
  int rc;
  if (existing_ == ExistingFile::kRefuse) {
    rc = ::renameat2(AT_FDCWD, temp_.c_str(), AT_FDCWD, path_.c_str(), RENAME_NOREPLACE);
    if (rc != 0 && errno == EINVAL) {  // a file system without RENAME_NOREPLACE
      rc = ::link(temp_.c_str(), path_.c_str());
      if (rc == 0) ::unlink(temp_.c_str());
    }
  } else {
    rc = ::rename(temp_.c_str(), path_.c_str());
  }
  if (rc != 0) {
    int err = errno;
    discard();
    if (err == EEXIST)
      return makeError(ErrorCode::kUsage,
                       what_ + " " + path_ + ": already exists (remove it or pass --force)");
    return makeError(ErrorCode::kIo,
                     what_ + " " + path_ + ": cannot rename into place: " + std::strerror(err));
  }
  temp_.clear();
  return okStatus();
}

Status writeFileAtomic(const std::string& path, std::string_view text, const std::string& what,
                       ExistingFile existing) {
  auto file = AtomicFile::create(path, what, existing);
  if (!file) return tl::unexpected(file.error());
  if (auto st = file->write(text); !st) return st;
  return file->commit();
}

}  // namespace railkit
