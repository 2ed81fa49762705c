#pragma once
// TreeWriter: creates files, directories and symlinks strictly beneath one
// directory, whatever names it is given.
//
// Extracting a snapshot someone handed us, or copying a tree that came from
// one, must never touch anything outside the target directory, even when the
// names are hostile: "esc -> /etc" followed by "esc/passwd", a second entry
// at the name of a link, "a/../../x". Path strings joined and handed to the
// OS would follow such links. So every name is split into components and
// walked with directory file descriptors: parents are opened with
// O_DIRECTORY|O_NOFOLLOW (created with mkdirat when absent), the last
// component is made with mkdirat / symlinkat / openat(O_CREAT|O_EXCL|
// O_NOFOLLOW). A component that is a symlink (or a file) where a directory is
// needed is an error, never followed; ".." and absolute names are errors.
// Symlinks are created as given (their targets are never resolved here:
// FileRoot resolves them inside the root when reading).
//
//   auto tree = TreeWriter::open(dir, TreeWriter::Existing::kRefuse);
//   if (auto st = tree->makeSymlink("sys/class/net/eth0", "../../devices/..."); !st) ...
//   auto fd = tree->createFile("proc/meminfo");   // write(fd->get(), ...)

#include <string>
#include <string_view>

#include "core/result.h"

namespace railkit {

// An owned file descriptor, closed on destruction.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept;
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() { reset(); }

  int get() const { return fd_; }
  explicit operator bool() const { return fd_ >= 0; }
  int release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }
  void reset(int fd = -1);

 private:
  int fd_ = -1;
};

class TreeWriter {
 public:
  // What happens when the last component already exists. kRefuse (snapshot
  // extraction): any existing name is an error, except a directory asked for
  // again. kReplace (snapshot writing, which first writes placeholders):
  // a file or symlink there is unlinked (never followed) and made anew.
  enum class Existing { kRefuse, kReplace };

  // `dir` must be an existing directory (not a symlink to one).
  static Result<TreeWriter> open(const std::string& dir, Existing existing);

  TreeWriter(TreeWriter&&) noexcept = default;
  TreeWriter& operator=(TreeWriter&&) noexcept = default;

  // `rel` is relative to the directory; "a//b", "./a" and "a/" are fine,
  // "/a", ".." and "" are not. Missing parents are created (0755).
  Status makeDirectory(std::string_view rel);
  Status makeSymlink(std::string_view rel, std::string_view target);
  // A new regular file (0644), open for writing.
  Result<UniqueFd> createFile(std::string_view rel);
  // createFile + write everything.
  Status writeFile(std::string_view rel, std::string_view bytes);

 private:
  TreeWriter() = default;
  // Opens (creating as needed) the directory holding the last component of
  // `rel`, and returns that component's name in `leaf`.
  Result<int> parentOf(std::string_view rel, std::string& leaf);
  Status clearForReplace(int parent, const std::string& leaf, std::string_view rel, bool want_dir);

  UniqueFd root_;
  Existing existing_ = Existing::kRefuse;
  // The last parent directory opened, by relative path: entries come grouped
  // by directory, so most lookups are one string compare. A cached fd stays
  // valid and inside the tree whatever later entries do: directories are
  // never removed or replaced.
  std::string cached_parent_;
  UniqueFd cached_fd_;
};

// Writes all of `bytes` to `fd`, retrying short writes and EINTR.
Status writeAll(int fd, std::string_view bytes, const std::string& what);

}  // namespace railkit
