#include "core/file_root.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/input_file.h"

namespace railkit {
namespace {

constexpr int kMaxSymlinkHops = 40;

std::vector<std::string> splitComponents(std::string_view path) {
  std::vector<std::string> parts;
  size_t i = 0;
  while (i < path.size()) {
    while (i < path.size() && path[i] == '/') ++i;
    size_t j = i;
    while (j < path.size() && path[j] != '/') ++j;
    if (j > i) parts.emplace_back(path.substr(i, j - i));
    i = j;
  }
  return parts;
}

std::string joinComponents(const std::vector<std::string>& parts) {
  if (parts.empty()) return "/";
  std::string out;
  for (const auto& p : parts) {
    out += '/';
    out += p;
  }
  return out;
}

}  // namespace

std::string joinPath(std::string_view dir, std::string_view name) {
  std::string out(dir);
  if (out.empty() || out.back() != '/') out += '/';
  while (!name.empty() && name.front() == '/') name.remove_prefix(1);
  out += name;
  return out;
}

std::string baseName(std::string_view path) {
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  auto pos = path.rfind('/');
  return std::string(pos == std::string_view::npos ? path : path.substr(pos + 1));
}

FileRoot::FileRoot(std::filesystem::path root) : root_(std::move(root)) {
  live_ = root_ == "/" || root_.empty();
  if (root_.empty()) root_ = "/";
}

Result<FileRoot> FileRoot::open(const std::filesystem::path& root) {
  std::error_code ec;
  if (!std::filesystem::is_directory(root, ec)) {
    return makeError(ErrorCode::kUsage,
                     "--root " + root.string() + ": expected a directory or snapshot, found " +
                         (std::filesystem::exists(root, ec) ? "something else" : "nothing"));
  }
  return FileRoot(std::filesystem::absolute(root, ec));
}

std::filesystem::path FileRoot::diskPath(std::string_view abs) const {
  auto resolved = resolve(abs);
  std::string inside = resolved ? *resolved : std::string(abs);
  if (live_) return inside;
  return root_ / inside.substr(inside.empty() || inside[0] != '/' ? 0 : 1);
}

Result<std::string> FileRoot::resolve(std::string_view abs) const {
  std::vector<std::string> pending = splitComponents(abs);
  std::reverse(pending.begin(), pending.end());  // pop from the back
  std::vector<std::string> done;
  int hops = 0;
  while (!pending.empty()) {
    std::string part = std::move(pending.back());
    pending.pop_back();
    if (part == ".") continue;
    if (part == "..") {
      if (!done.empty()) done.pop_back();  // ".." never climbs above the root
      continue;
    }
    done.push_back(part);
    std::string inside = joinComponents(done);
    std::filesystem::path disk = live_ ? std::filesystem::path(inside) : root_ / inside.substr(1);
    struct stat st {};
    if (::lstat(disk.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) continue;
    if (++hops > kMaxSymlinkHops) {
      return makeError(ErrorCode::kInvalidInput, "too many symlinks resolving " + std::string(abs));
    }
    std::error_code ec;
    auto target = std::filesystem::read_symlink(disk, ec);
    if (ec) continue;
    std::string target_str = target.string();
    if (observer_) observer_->onSymlink(inside, target_str);
    done.pop_back();
    if (!target_str.empty() && target_str[0] == '/') done.clear();
    auto target_parts = splitComponents(target_str);
    for (auto it = target_parts.rbegin(); it != target_parts.rend(); ++it) pending.push_back(*it);
  }
  return joinComponents(done);
}

Result<std::string> FileRoot::readText(std::string_view abs, size_t max_bytes) const {
  auto bytes = readBytes(abs, max_bytes);
  if (!bytes) return tl::unexpected<Error>(bytes.error());
  return std::string(bytes->begin(), bytes->end());
}

std::optional<std::string> FileRoot::readLine(std::string_view abs) const {
  auto text = readText(abs, 64 << 10);
  if (!text) return std::nullopt;
  std::string line = text->substr(0, text->find('\n'));
  while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r')) {
    line.pop_back();
  }
  return line;
}

Result<std::vector<uint8_t>> FileRoot::readBytes(std::string_view abs, size_t max_bytes) const {
  auto resolved = resolve(abs);
  if (!resolved) return tl::unexpected<Error>(resolved.error());
  std::filesystem::path disk = live_ ? std::filesystem::path(*resolved) : root_ / resolved->substr(1);
  // A tree may hold a FIFO or a device where a sysfs file should be: opening
  // a FIFO would wait for a writer, /dev/zero would never end. O_NONBLOCK
  // makes the open return at once, and only regular files are read (sysfs
  // and /proc attributes are regular files). The path is symlink-free after
  // resolve(); O_NOFOLLOW keeps it so.
  int fd = ::open(disk.c_str(), O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    int err = errno;
    ErrorCode code = (err == ENOENT || err == ENOTDIR) ? ErrorCode::kNotFound : ErrorCode::kIo;
    return makeError(code, std::string(abs) + ": " + std::strerror(err));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    bool stat_ok = st.st_mode != 0;
    ::close(fd);
    return makeError(ErrorCode::kInvalidInput,
                     std::string(abs) + ": not a regular file" +
                         (stat_ok ? " (" + describeFileType(st.st_mode) + ")" : ""));
  }
  std::vector<uint8_t> data;
  uint8_t buf[8192];
  bool failed = false;
  while (data.size() < max_bytes) {
    size_t want = std::min(sizeof buf, max_bytes - data.size());
    ssize_t got = ::read(fd, buf, want);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) failed = true;
    if (got <= 0) break;
    data.insert(data.end(), buf, buf + got);
  }
  ::close(fd);
  if (failed) return makeError(ErrorCode::kIo, std::string(abs) + ": read error");
  if (observer_) observer_->onFileRead(*resolved);
  return data;
}

Result<std::vector<std::string>> FileRoot::listDir(std::string_view abs) const {
  auto resolved = resolve(abs);
  if (!resolved) return tl::unexpected<Error>(resolved.error());
  std::filesystem::path disk = live_ ? std::filesystem::path(*resolved) : root_ / resolved->substr(1);
  std::error_code ec;
  std::filesystem::directory_iterator it(disk, ec);
  if (ec) {
    ErrorCode code = ec == std::errc::no_such_file_or_directory || ec == std::errc::not_a_directory
                         ? ErrorCode::kNotFound
                         : ErrorCode::kIo;
    return makeError(code, std::string(abs) + ": " + ec.message());
  }
  std::vector<std::string> names;
  for (; it != std::filesystem::directory_iterator(); it.increment(ec)) {
    if (ec) break;
    names.push_back(it->path().filename().string());
  }
  std::sort(names.begin(), names.end());
  if (observer_) observer_->onDirListed(*resolved);
  return names;
}

// Both resolve first and answer false when that fails (a symlink loop):
// diskPath() would then hand the OS the raw path, whose links it would
// follow out of the root.
bool FileRoot::exists(std::string_view abs) const {
  auto resolved = resolve(abs);
  if (!resolved) return false;
  std::filesystem::path disk = live_ ? std::filesystem::path(*resolved) : root_ / resolved->substr(1);
  struct stat st {};
  return ::lstat(disk.c_str(), &st) == 0;
}

bool FileRoot::isDirectory(std::string_view abs) const {
  auto resolved = resolve(abs);
  if (!resolved) return false;
  std::filesystem::path disk = live_ ? std::filesystem::path(*resolved) : root_ / resolved->substr(1);
  struct stat st {};
  return ::lstat(disk.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

Result<std::string> FileRoot::readLink(std::string_view abs) const {
  std::string parent(abs.substr(0, abs.rfind('/')));
  auto resolved_parent = resolve(parent.empty() ? "/" : parent);
  if (!resolved_parent) return tl::unexpected<Error>(resolved_parent.error());
  std::string inside = joinPath(*resolved_parent, baseName(abs));
  std::filesystem::path disk = live_ ? std::filesystem::path(inside) : root_ / inside.substr(1);
  std::error_code ec;
  auto target = std::filesystem::read_symlink(disk, ec);
  if (ec) return makeError(ErrorCode::kNotFound, std::string(abs) + ": not a symlink (" + ec.message() + ")");
  if (observer_) observer_->onSymlink(inside, target.string());
  return target.string();
}

}  // namespace railkit
