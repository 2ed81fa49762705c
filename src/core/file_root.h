#pragma once
// FileRoot: every read of the machine's files goes through one of these.
//
// A FileRoot maps absolute paths ("/sys/class/infiniband") onto a directory on
// disk: "/" for the live machine, or a snapshot tree given with --root. Paths
// are resolved component by component so that symlinks, relative or absolute,
// never leave the root: sysfs is full of relative links
// ("mlx5_0 -> ../../devices/pci0000:00/..."), and a snapshot must never make
// us read the real /sys by accident. No reader in railkit touches the file
// system any other way, which is what makes every reader testable from a
// fixture tree.
//
// An optional AccessObserver hears about every file read, directory listed and
// symlink followed; `snapshot` uses it to copy exactly what the readers used.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace railkit {

class AccessObserver {
 public:
  virtual ~AccessObserver() = default;
  // `path` is the resolved absolute path inside the root.
  virtual void onFileRead(const std::string& path) = 0;
  virtual void onDirListed(const std::string& path) = 0;
  // A symlink at `link` (resolved parent, absolute inside the root) whose raw
  // target is `target`.
  virtual void onSymlink(const std::string& link, const std::string& target) = 0;
};

class FileRoot {
 public:
  // `root` is a directory on disk; "/" reads the live machine.
  explicit FileRoot(std::filesystem::path root);

  // Opens a root given by the user: a directory must exist.
  static Result<FileRoot> open(const std::filesystem::path& root);

  bool isLive() const { return live_; }
  const std::filesystem::path& root() const { return root_; }
  void setObserver(AccessObserver* observer) { observer_ = observer; }

  // Resolves every symlink in `abs` inside the root and returns the absolute
  // path (inside the root) it names. The final component is followed too.
  // Fails only on a symlink loop; a missing component is not an error here.
  Result<std::string> resolve(std::string_view abs) const;

  // Where `abs` lives on disk (root + resolved path).
  std::filesystem::path diskPath(std::string_view abs) const;

  // Whole file as text, at most `max_bytes` (sysfs files are tiny; the cap is
  // a guard against a hostile tree). kNotFound when absent.
  Result<std::string> readText(std::string_view abs, size_t max_bytes = 4 << 20) const;
  // First line without trailing whitespace, or nullopt when unreadable.
  std::optional<std::string> readLine(std::string_view abs) const;
  Result<std::vector<uint8_t>> readBytes(std::string_view abs, size_t max_bytes = 1 << 20) const;

  // Sorted entry names of a directory; kNotFound when absent.
  Result<std::vector<std::string>> listDir(std::string_view abs) const;

  // True when anything of that name exists (file, device node, dir, link).
  bool exists(std::string_view abs) const;
  bool isDirectory(std::string_view abs) const;

  // The raw target of a symlink at `abs` (its parent resolved first).
  Result<std::string> readLink(std::string_view abs) const;

 private:
  std::filesystem::path root_;
  bool live_ = false;
  AccessObserver* observer_ = nullptr;
};

// Joins "/a/b" and "c" into "/a/b/c" (no normalisation beyond one slash).
std::string joinPath(std::string_view dir, std::string_view name);
// The last component of a path ("/x/y/mlx5_0" -> "mlx5_0").
std::string baseName(std::string_view path);

}  // namespace railkit
