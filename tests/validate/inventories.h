#pragma once
// NodeBuilder trees written to disk and read back with collectInventory, as
// `railkit validate --root` reads them, for the validate suites.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "model/collect.h"
#include "support/node_builder.h"

namespace railkit::testing {

// Trees of ~1000 small files: on tmpfs unless TMPDIR says otherwise.
inline std::filesystem::path validateScratch() {
  std::filesystem::path base = std::filesystem::temp_directory_path();
  if (std::getenv("TMPDIR") == nullptr && std::filesystem::is_directory("/dev/shm") && ::access("/dev/shm", W_OK) == 0)
    base = "/dev/shm";
  return base / ("railkit-validate-" + std::to_string(::getpid()));
}

// Removes this process's trees when the suite ends.
class ValidateScratchCleanup : public ::testing::Environment {
 public:
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(validateScratch(), ec);
  }
};

inline model::Inventory inventoryOf(const NodeBuilder& node, const std::string& name) {
  auto dir = validateScratch() / name;
  node.write(dir);
  auto inv = model::collectInventory(FileRoot(dir), {});
  EXPECT_TRUE(inv.has_value()) << (inv ? "" : inv.error().message);
  return inv ? *inv : model::Inventory{};
}

// The node without the RDMA device `nic` (and its netdev): a device that
// failed to probe or was not passed to the pod.
inline NodeBuilder withoutNic(NodeBuilder node, const std::string& nic) {
  std::string pci = node.nic(nic).pci.address;
  std::erase_if(node.spec().nics, [&](const NicSpec& n) { return n.name == nic; });
  std::erase_if(node.spec().netdevs, [&](const NetdevSpec& d) { return d.pci == pci; });
  return node;
}

}  // namespace railkit::testing
