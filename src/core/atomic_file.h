#pragma once
// Writing a result file so that it is never seen half-written. railkit's
// outputs (--json-out, wait-dns --output, render --output, snapshot --output) are read by
// other programs: a launcher reading the hostfile wait-dns wrote, a CI job
// reading bench JSON. A run killed mid-write must leave either the old file
// or the new one, never a truncated one. So the text goes to a temporary file
// in the same directory (same file system), is flushed to disk, and is then
// renamed over the final name in one step.
//
//   if (auto st = writeFileAtomic(path, text, "--json-out"); !st) ...
//
// AtomicFile is the same for writers that stream (libarchive, large tables):
// write to fd(), then commit(); a destroyed, uncommitted AtomicFile removes
// its temporary file.

#include <string>
#include <string_view>

#include "core/result.h"

namespace railkit {

// What to do when the final name already exists.
enum class ExistingFile { kReplace, kRefuse };

class AtomicFile {
 public:
  // Creates "<dir>/.<name>.tmp-XXXXXX" beside `path`. `what` names the
  // option or output in messages ("--json-out", "snapshot --output").
  static Result<AtomicFile> create(const std::string& path, std::string what,
                                   ExistingFile existing = ExistingFile::kReplace);

  AtomicFile(AtomicFile&& other) noexcept;
  AtomicFile& operator=(AtomicFile&& other) noexcept;
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile();

  int fd() const { return fd_; }
  const std::string& tempPath() const { return temp_; }
  const std::string& path() const { return path_; }

  Status write(std::string_view bytes);
  // fsync, close and rename over the final name. With kRefuse, fails (and
  // removes the temporary file) when the final name appeared meanwhile.
  Status commit();

 private:
  AtomicFile() = default;
  void discard();

  std::string path_;
  std::string temp_;
  std::string what_;
  ExistingFile existing_ = ExistingFile::kReplace;
  int fd_ = -1;
};

Status writeFileAtomic(const std::string& path, std::string_view text, const std::string& what,
                       ExistingFile existing = ExistingFile::kReplace);

}  // namespace railkit
