#include "model/root_source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "core/input_file.h"
#include "core/strings.h"
#include "core/tree_writer.h"

namespace fs = std::filesystem;

namespace railkit::model {

bool isTarGz(const fs::path& path) {
  std::string name = path.filename().string();
  return endsWith(name, ".tar.gz") || endsWith(name, ".tgz");
}

Result<RootSource> RootSource::open(const fs::path& path, const ArchiveLimits& limits) {
  const std::string label = "--root " + path.string();
  // O_NONBLOCK: a FIFO given as --root must not wait for a writer.
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  if (!fd) {
    int err = errno;
    if (err == ENOENT || err == ENOTDIR)
      return makeError(ErrorCode::kNotFound, label + ": no such file or directory");
    return makeError(ErrorCode::kIo, label + ": cannot open: " + std::strerror(err));
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0)
    return makeError(ErrorCode::kIo, label + ": cannot stat: " + std::strerror(errno));
  RootSource source;
  if (S_ISDIR(st.st_mode)) {
    // Opening it read-only proved we may list it; entries also need search
    // permission. A tree we cannot read is not a node without RDMA.
    if (::faccessat(AT_FDCWD, path.c_str(), R_OK | X_OK, AT_EACCESS) != 0)
      return makeError(ErrorCode::kIo, label + ": cannot read the directory: " + std::strerror(errno));
    source.directory_ = path;
    return source;
  }
  if (!S_ISREG(st.st_mode))
    return makeError(
        ErrorCode::kInvalidInput,
        label + ": expected a directory or a .tar.gz snapshot, found " + describeFileType(st.st_mode));
  if (auto magic = checkGzipMagic(fd.get(), label); !magic) return tl::unexpected(magic.error());

  // The scope first: from here until the directory is removed, a signal waits.
  source.scope_ = std::make_unique<CleanupScope>();
  std::string tmpl = (fs::temp_directory_path() / "railkit-root-XXXXXX").string();
  if (!mkdtemp(tmpl.data()))
    return makeError(ErrorCode::kIo,
                     label + ": cannot create a temporary directory: " + std::strerror(errno));
  source.temp_ = tmpl;
  source.directory_ = tmpl;
  auto stats = extractSnapshotArchive(fd.get(), tmpl, label, limits);
  if (!stats) return tl::unexpected(stats.error());
  return source;
}

void RootSource::removeTemp() {
  if (!temp_.empty()) {
    std::error_code ec;
    // remove_all never follows symlinks; the tree may be full of them.
    fs::remove_all(temp_, ec);
    temp_.clear();
  }
  scope_.reset();  // may re-raise a pending signal: the directory is gone
}

RootSource::RootSource(RootSource&& other) noexcept
    : directory_(std::move(other.directory_)),
      temp_(std::move(other.temp_)),
      scope_(std::move(other.scope_)) {
  other.temp_.clear();
}

RootSource& RootSource::operator=(RootSource&& other) noexcept {
  if (this != &other) {
    removeTemp();
    directory_ = std::move(other.directory_);
    temp_ = std::move(other.temp_);
    scope_ = std::move(other.scope_);
    other.temp_.clear();
  }
  return *this;
}

RootSource::~RootSource() {
  removeTemp();
}

}  // namespace railkit::model
