#include "core/tree_writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace railkit {
namespace {

constexpr int kDirFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;

std::string quotedName(std::string_view s) {
  // Built by appends: GCC 12 warns (-Wrestrict, a false positive) on "'" + string.
  std::string out;
  out.reserve(s.size() + 2);
  out.push_back('\'');
  out.append(s);
  out.push_back('\'');
  return out;
}

// What is at `name` in `dir`, without following it, for messages.
std::string whatIsAt(int dir, const std::string& name) {
  struct stat st {};
  if (::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return "unusable";
  if (S_ISLNK(st.st_mode)) return "a symlink";
  if (S_ISDIR(st.st_mode)) return "a directory";
  if (S_ISREG(st.st_mode)) return "a file";
  return "a special file";
}

// Splits `rel` into components; "" and "." are dropped, ".." and absolute
// names refused.
Result<std::vector<std::string>> components(std::string_view rel) {
  if (!rel.empty() && rel.front() == '/') return makeError(ErrorCode::kInvalidInput, "absolute name");
  std::vector<std::string> parts;
  size_t i = 0;
  while (i <= rel.size()) {
    size_t j = rel.find('/', i);
    if (j == std::string_view::npos) j = rel.size();
    std::string_view part = rel.substr(i, j - i);
    if (part == "..") return makeError(ErrorCode::kInvalidInput, "'..' in the name");
    if (!part.empty() && part != ".") parts.emplace_back(part);
    i = j + 1;
  }
  if (parts.empty()) return makeError(ErrorCode::kInvalidInput, "empty name");
  return parts;
}

Error osError(std::string_view rel, const std::string& what, int err) {
  return Error{ErrorCode::kIo, quotedName(rel) + ": " + what + ": " + std::strerror(err)};
}

}  // namespace

UniqueFd& UniqueFd::operator=(UniqueFd&& other) noexcept {
  if (this != &other) reset(other.release());
  return *this;
}

void UniqueFd::reset(int fd) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = fd;
}

Status writeAll(int fd, std::string_view bytes, const std::string& what) {
  while (!bytes.empty()) {
    ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return makeError(ErrorCode::kIo, what + ": write failed: " + std::strerror(errno));
    }
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return okStatus();
}

Result<TreeWriter> TreeWriter::open(const std::string& dir, Existing existing) {
  int fd = ::open(dir.c_str(), kDirFlags);
  if (fd < 0) return makeError(ErrorCode::kIo, dir + ": cannot open the directory: " + std::strerror(errno));
  TreeWriter writer;
  writer.root_.reset(fd);
  writer.existing_ = existing;
  return writer;
}

Result<int> TreeWriter::parentOf(std::string_view rel, std::string& leaf) {
  auto parts = components(rel);
  if (!parts) return tl::unexpected(parts.error().withContext(quotedName(rel)));
  leaf = parts->back();
  parts->pop_back();
  if (parts->empty()) return root_.get();
  std::string key;
  for (const auto& p : *parts) key += p + "/";
  if (cached_fd_ && key == cached_parent_) return cached_fd_.get();

  UniqueFd current;
  int dir = root_.get();
  std::string walked;
  for (const auto& part : *parts) {
    walked += walked.empty() ? part : "/" + part;
    int next = ::openat(dir, part.c_str(), kDirFlags);
    if (next < 0 && errno == ENOENT) {
      if (::mkdirat(dir, part.c_str(), 0755) != 0 && errno != EEXIST)
        return tl::unexpected(osError(rel, "cannot create " + quotedName(walked), errno));
      next = ::openat(dir, part.c_str(), kDirFlags);
    }
    if (next < 0) {
      if (errno == ELOOP || errno == ENOTDIR)
        return makeError(ErrorCode::kInvalidInput,
                         quotedName(rel) + ": " + quotedName(walked) + " is " + whatIsAt(dir, part) +
                             ", not a directory (nothing is written through a link)");
      return tl::unexpected(osError(rel, "cannot open " + quotedName(walked), errno));
    }
    current.reset(next);
    dir = next;
  }
  cached_parent_ = key;
  cached_fd_ = std::move(current);
  return cached_fd_.get();
}

Status TreeWriter::clearForReplace(int parent, const std::string& leaf, std::string_view rel, bool want_dir) {
  struct stat st {};
  if (::fstatat(parent, leaf.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno == ENOENT) return okStatus();
    return tl::unexpected(osError(rel, "cannot examine it", errno));
  }
  if (S_ISDIR(st.st_mode)) {
    if (want_dir) return okStatus();
    return makeError(ErrorCode::kInvalidInput, quotedName(rel) + ": already exists as a directory");
  }
  if (existing_ == Existing::kRefuse)
    return makeError(ErrorCode::kInvalidInput, quotedName(rel) + ": a second entry for a name that exists (" +
                                                   whatIsAt(parent, leaf) + ")");
  // unlinkat removes the link itself, never what it points to.
  if (::unlinkat(parent, leaf.c_str(), 0) != 0)
    return tl::unexpected(osError(rel, "cannot replace it", errno));
  return okStatus();
}

Status TreeWriter::makeDirectory(std::string_view rel) {
  std::string leaf;
  auto parent = parentOf(rel, leaf);
  if (!parent) return tl::unexpected(parent.error());
  if (auto st = clearForReplace(*parent, leaf, rel, true); !st) return st;
  if (::mkdirat(*parent, leaf.c_str(), 0755) != 0 && errno != EEXIST)
    return tl::unexpected(osError(rel, "cannot create the directory", errno));
  // EEXIST: clearForReplace saw a directory there, or one appeared; either way
  // it must be a real directory now.
  struct stat st {};
  if (::fstatat(*parent, leaf.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode))
    return makeError(ErrorCode::kInvalidInput,
                     quotedName(rel) + ": is " + whatIsAt(*parent, leaf) + ", not a directory");
  return okStatus();
}

Status TreeWriter::makeSymlink(std::string_view rel, std::string_view target) {
  if (target.empty())
    return makeError(ErrorCode::kInvalidInput, quotedName(rel) + ": symlink with an empty target");
  std::string leaf;
  auto parent = parentOf(rel, leaf);
  if (!parent) return tl::unexpected(parent.error());
  if (auto st = clearForReplace(*parent, leaf, rel, false); !st) return st;
  if (::symlinkat(std::string(target).c_str(), *parent, leaf.c_str()) != 0)
    return tl::unexpected(osError(rel, "cannot create the symlink", errno));
  return okStatus();
}

Result<UniqueFd> TreeWriter::createFile(std::string_view rel) {
  std::string leaf;
  auto parent = parentOf(rel, leaf);
  if (!parent) return tl::unexpected(parent.error());
  if (auto st = clearForReplace(*parent, leaf, rel, false); !st) return tl::unexpected(st.error());
  // O_EXCL|O_NOFOLLOW: a name that appeared meanwhile (even a dangling link)
  // is an error, never opened.
  int fd = ::openat(*parent, leaf.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) return tl::unexpected(osError(rel, "cannot create the file", errno));
  return UniqueFd(fd);
}

Status TreeWriter::writeFile(std::string_view rel, std::string_view bytes) {
  auto fd = createFile(rel);
  if (!fd) return tl::unexpected(fd.error());
  return writeAll(fd->get(), bytes, quotedName(rel));
}

}  // namespace railkit
