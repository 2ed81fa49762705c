#pragma once
// Paths every test needs, and the rule for ../shared: skip with a reason.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

namespace railkit::testing {

inline std::filesystem::path sourceDir() {
  return RAILKIT_SOURCE_DIR;
}
inline std::filesystem::path fixturesDir() {
  return sourceDir() / "tests" / "fixtures";
}
inline std::filesystem::path sharedDir() {
  return RAILKIT_SHARED_DIR;
}
inline bool haveShared() {
  return std::filesystem::is_directory(sharedDir() / "data");
}
inline std::string railkitBinary() {
  return RAILKIT_BINARY;
}
// What render tests lint against: the upstream copies in ../shared/schemas,
// then the CRDs railkit adds for kinds it renders that those lack (schemas/).
inline std::vector<std::string> schemaDirs() {
  return {(sharedDir() / "schemas").string(), (sourceDir() / "schemas").string()};
}

// A directory for one test binary's whole run, removed when the binary exits
// (a FIFO or a 16 MiB sparse file left in /tmp by every run would pile up).
class BinaryScratchDir {
 public:
  explicit BinaryScratchDir(const std::string& prefix)
      : path_(std::filesystem::temp_directory_path() / (prefix + "-" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~BinaryScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  BinaryScratchDir(const BinaryScratchDir&) = delete;
  BinaryScratchDir& operator=(const BinaryScratchDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// An empty directory of this test's own, under the temp directory: the prefix,
// the process id and the running test's name keep parallel tests apart. The
// caller removes it in TearDown.
inline std::filesystem::path freshTestDir(const std::string& prefix) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  auto dir = std::filesystem::temp_directory_path() /
             (prefix + "-" + std::to_string(::getpid()) + "-" + (info ? info->name() : "suite"));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace railkit::testing

// Skips the current test with a clear message when ../shared is absent.
#define RAILKIT_REQUIRE_SHARED()                                                   \
  do {                                                                             \
    if (!::railkit::testing::haveShared())                                         \
      GTEST_SKIP() << "../shared not found at " << ::railkit::testing::sharedDir() \
                   << ": real-data test skipped";                                  \
  } while (0)
