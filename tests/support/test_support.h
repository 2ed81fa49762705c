#pragma once
// Paths every test needs, and the rule for ../shared: skip with a reason.
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

namespace railkit::testing {

inline std::filesystem::path sourceDir() { return RAILKIT_SOURCE_DIR; }
inline std::filesystem::path fixturesDir() { return sourceDir() / "tests" / "fixtures"; }
inline std::filesystem::path sharedDir() { return RAILKIT_SHARED_DIR; }
inline bool haveShared() { return std::filesystem::is_directory(sharedDir() / "data"); }
inline std::string railkitBinary() { return RAILKIT_BINARY; }

}  // namespace railkit::testing

// Skips the current test with a clear message when ../shared is absent.
#define RAILKIT_REQUIRE_SHARED()                                                        \
  do {                                                                                 \
    if (!::railkit::testing::haveShared())                                             \
      GTEST_SKIP() << "../shared not found at " << ::railkit::testing::sharedDir()      \
                   << ": real-data test skipped";                                      \
  } while (0)
