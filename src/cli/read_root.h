#pragma once
// What inspect, doctor, env and snapshot read: this machine, or with --root
// a snapshot directory or .tar.gz (extracted for as long as the command runs).

#include <optional>
#include <string>

#include "core/file_root.h"
#include "model/root_source.h"

namespace railkit::cli {

class ReadRoot {
 public:
  // "/" when `root_flag` is empty; an error names the --root that failed.
  static Result<ReadRoot> open(const std::string& root_flag);
  FileRoot& files() { return files_; }

 private:
  explicit ReadRoot(std::optional<model::RootSource> source);
  std::optional<model::RootSource> source_;
  FileRoot files_;
};

}  // namespace railkit::cli
