#pragma once
// Snapshot: a copy of exactly the files `inspect` reads, so that inspect (and
// doctor) can run later, elsewhere, on the copy. A SnapshotRecorder listens to
// the FileRoot while collectInventory runs; writeSnapshot then recreates what
// it heard under a directory (files copied, symlinks kept as symlinks with
// their raw targets, listed directories recreated with their entries) and
// adds railkit/live.json with the facts that are not files (interface
// addresses, /dev/shm size from statvfs). A .tar.gz output is packed with
// libarchive.

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

// Writes the recorded tree from `root` to `out` (a directory, created, must be
// empty or absent; or a path ending in .tar.gz/.tgz).
Result<SnapshotStats> writeSnapshot(const FileRoot& root, const SnapshotRecorder& recorder,
                                    const Inventory& inventory, const std::filesystem::path& out);

}  // namespace railkit::model
