#pragma once
// The CLI tests' scratch files and FIFOs. They run railkit with
// support/process.h (runRailkit: shell text, a 60 s deadline, so a command
// that hangs on a FIFO fails its test with status 124 instead of hanging
// the suite).
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "support/process.h"
#include "support/test_support.h"

namespace railkit::testing {

// This test binary's scratch directory, removed when it exits.
inline const std::filesystem::path& cliScratch() {
  static BinaryScratchDir dir("railkit-cli");
  return dir.path();
}

// Writes `text` to `path`; a relative path lands in cliScratch().
inline std::string writeScratchFile(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::path full = cliScratch() / path;
  std::ofstream(full, std::ios::binary) << text;
  return full.string();
}

inline std::string makeFifo(const std::filesystem::path& path) {
  std::filesystem::remove(path);
  EXPECT_EQ(::mkfifo(path.c_str(), 0600), 0) << path;
  return path.string();
}

}  // namespace railkit::testing
