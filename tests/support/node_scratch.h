#pragma once
// Where suites write NodeBuilder trees (~1000 small files each) and read them
// back as `--root` does: one directory per test binary, on tmpfs when TMPDIR
// does not say otherwise (a disk-backed /tmp on a busy machine makes a suite
// minutes slower), removed when the binary's tests end.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "model/collect.h"
#include "support/node_builder.h"

namespace railkit::testing {

inline std::filesystem::path nodeScratchBase() {
  if (std::getenv("TMPDIR") == nullptr && std::filesystem::is_directory("/dev/shm") &&
      ::access("/dev/shm", W_OK) == 0)
    return "/dev/shm";
  return std::filesystem::temp_directory_path();
}

// This binary's directory: `prefix` names the suite, the process id keeps
// parallel runs apart.
inline std::filesystem::path nodeScratch(const std::string& prefix) {
  return nodeScratchBase() / (prefix + "-" + std::to_string(::getpid()));
}

// Registered once per binary: removes nodeScratch(prefix) when the tests end.
class NodeScratchCleanup : public ::testing::Environment {
 public:
  explicit NodeScratchCleanup(std::string prefix) : prefix_(std::move(prefix)) {}
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(nodeScratch(prefix_), ec);
  }

 private:
  std::string prefix_;
};

// The tree written to `dir` and read back with collectInventory; a tree that
// cannot be read fails the running test.
inline model::Inventory inventoryAt(const NodeBuilder& node, const std::filesystem::path& dir) {
  node.write(dir);
  auto inv = model::collectInventory(FileRoot(dir), {});
  EXPECT_TRUE(inv.has_value()) << (inv ? "" : inv.error().message);
  return inv ? *inv : model::Inventory{};
}

}  // namespace railkit::testing
