#pragma once
// RootSource: what --root names, opened for reading. A directory is used in
// place (it must be one we can list). A regular file must be a gzip-compressed
// tar snapshot, whatever its name: the content is checked, not the suffix.
// It is extracted (model/snapshot_archive.h: nothing outside the directory,
// bounded, garbage refused) into a private temporary directory
// ($TMPDIR/railkit-root-XXXXXX, mode 0700) that is removed when the
// RootSource is destroyed, also on Ctrl-C / SIGTERM (core/interrupt.h).
//
//   auto source = RootSource::open(opts.root);      // Result<RootSource>
//   if (!source) return reportError(source.error());
//   FileRoot root = source->fileRoot();

#include <filesystem>
#include <memory>
#include <string>

#include "core/file_root.h"
#include "core/interrupt.h"
#include "core/result.h"
#include "model/snapshot_archive.h"

namespace railkit::model {

class RootSource {
 public:
  // `path` is a directory or a .tar.gz snapshot; kNotFound when absent,
  // kInvalidInput for anything else (one line saying what was found).
  static Result<RootSource> open(const std::filesystem::path& path, const ArchiveLimits& limits = {});

  RootSource(RootSource&& other) noexcept;
  RootSource& operator=(RootSource&& other) noexcept;
  RootSource(const RootSource&) = delete;
  RootSource& operator=(const RootSource&) = delete;
  ~RootSource();

  // The directory to read (the given one, or the extraction directory).
  const std::filesystem::path& directory() const { return directory_; }
  FileRoot fileRoot() const { return FileRoot(directory_); }
  bool extracted() const { return !temp_.empty(); }

 private:
  RootSource() = default;
  void removeTemp();

  std::filesystem::path directory_;
  std::filesystem::path temp_;  // removed on destruction when set
  // Alive exactly as long as temp_ may exist on disk: a signal meanwhile is
  // deferred until temp_ is gone.
  std::unique_ptr<CleanupScope> scope_;
};

// True for names ending in .tar.gz or .tgz: what `snapshot --output` packs.
bool isTarGz(const std::filesystem::path& path);

}  // namespace railkit::model
