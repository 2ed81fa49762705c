#pragma once
// RootSource: what --root names, opened for reading. A directory is used in
// place; a .tar.gz / .tgz snapshot is extracted with libarchive into a private
// temporary directory that is removed when the RootSource is destroyed.
// Entries with absolute paths or ".." components, and device nodes, are
// refused: a snapshot must not write outside its directory.
//
//   auto source = RootSource::open(opts.root);      // Result<RootSource>
//   if (!source) return reportError(source.error());
//   FileRoot root = source->fileRoot();

#include <filesystem>
#include <string>

#include "core/file_root.h"
#include "core/result.h"

namespace railkit::model {

class RootSource {
 public:
  // `path` is a directory or a .tar.gz/.tgz file; kNotFound when absent.
  static Result<RootSource> open(const std::filesystem::path& path);

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
  std::filesystem::path directory_;
  std::filesystem::path temp_;  // removed on destruction when set
};

bool isTarGz(const std::filesystem::path& path);

}  // namespace railkit::model
