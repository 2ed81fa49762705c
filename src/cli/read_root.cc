#include "cli/read_root.h"

namespace railkit::cli {

ReadRoot::ReadRoot(std::optional<model::RootSource> source)
    : source_(std::move(source)), files_(source_ ? source_->fileRoot() : FileRoot("/")) {}

Result<ReadRoot> ReadRoot::open(const std::string& root_flag) {
  if (root_flag.empty()) return ReadRoot(std::nullopt);
  auto opened = model::RootSource::open(root_flag);
  if (!opened) return tl::unexpected(opened.error());
  return ReadRoot(std::move(*opened));
}

}  // namespace railkit::cli
