#pragma once
// Snapshot: a copy of exactly the files `inspect` reads, so that inspect (and
// doctor) can run later, elsewhere, on the copy. A SnapshotRecorder listens to
// the FileRoot while collectInventory runs; writeSnapshot then recreates what
// it heard under a directory (files copied, symlinks kept as symlinks with
// their raw targets, listed directories recreated with their entries) and
// adds railkit/live.json with the facts that are not files (interface
// addresses, /dev/shm size from statvfs). A .tar.gz output is packed with
// libarchive. The source may itself be a hostile snapshot: the copy is made
// through a TreeWriter (core/tree_writer.h), so no name in it can make us
// write outside the output.

#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "core/file_root.h"
#include "core/result.h"
#include "model/inventory.h"

namespace railkit::model {

class SnapshotRecorder : public AccessObserver {
 public:
  void onFileRead(const std::string& path) override { files_.insert(path); }
  void onDirListed(const std::string& path) override { dirs_.insert(path); }
  void onSymlink(const std::string& link, const std::string& target) override { links_[link] = target; }

  const std::set<std::string>& files() const { return files_; }
  const std::set<std::string>& dirs() const { return dirs_; }
  const std::map<std::string, std::string>& links() const { return links_; }

 private:
  std::set<std::string> files_;
  std::set<std::string> dirs_;
  std::map<std::string, std::string> links_;
};

struct SnapshotStats {
  size_t files = 0;
  size_t links = 0;
  size_t dirs = 0;
};

// Whether `out` may be written: absent, or an empty directory; with `force`
// also an existing .tar.gz file, or (for a directory output) a file or a
// directory that is a railkit snapshot (holds railkit/live.json). Called
// before collecting, so a refused output costs nothing; writeSnapshot checks
// again.
Status checkSnapshotOutput(const std::filesystem::path& out, bool force);

// Writes the recorded tree from `root` to `out` (a directory, or a path
// ending in .tar.gz/.tgz). Nothing appears under `out` until it is complete:
// a directory is built in a hidden sibling (.NAME.railkit-snap-XXXXXX) and
// renamed into place; an archive is staged in $TMPDIR/railkit-snap-XXXXXX,
// packed into a temporary file beside `out` (core/atomic_file.h) and renamed.
// On error or Ctrl-C/SIGTERM (core/interrupt.h) every temporary is removed.
Result<SnapshotStats> writeSnapshot(const FileRoot& root, const SnapshotRecorder& recorder,
                                    const Inventory& inventory, const std::filesystem::path& out, bool force);

}  // namespace railkit::model
