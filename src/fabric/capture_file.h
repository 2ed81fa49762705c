#pragma once
// How every fabric reader opens the capture a user names: type checked and
// size capped by core/input_file.h ("-" reads standard input where the
// options allow it), then parsed with the path (or "stdin") as its source.

#include <string>
#include <string_view>

#include "core/input_file.h"
#include "core/result.h"

namespace railkit::fabric {

template <typename Capture>
Result<Capture> readCaptureFile(const std::string& path, const InputFileOptions& options,
                                Result<Capture> (*parse)(std::string_view, std::string)) {
  auto text = readInputFile(path, options);
  if (!text) return tl::unexpected(text.error());
  return parse(*text, path == "-" ? std::string("stdin") : path);
}

}  // namespace railkit::fabric
