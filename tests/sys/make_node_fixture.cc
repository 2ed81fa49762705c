// make_node_fixture PRESET DIR: writes a node tree with NodeBuilder.
// Presets: healthy-dgx-h100, healthy-roce, empty-pod, example-dgx-h100 (the
// node checked in as examples/dgx-h100-8gpu: healthy hardware with the four
// problems pods most often have).
#include <cstdio>
#include <string>

#include "support/node_builder.h"

using railkit::testing::NodeBuilder;

namespace {

NodeBuilder examplePreset() {
  auto node = NodeBuilder::healthyDgxH100();
  node.setMemlock(64 * 1024)                                 // container runtime default
      .setShmKib(64 * 1024)                                  // Kubernetes' 64 MiB /dev/shm
      .unloadModule("nvidia_peermem")                        // no GPUDirect RDMA
      .setPortState("mlx5_5", 1, "1: DOWN", "3: Disabled");  // cable out
  return node;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr,
                 "usage: make_node_fixture healthy-dgx-h100|healthy-roce|empty-pod|"
                 "example-dgx-h100 DIR\n");
    return 2;
  }
  std::string preset = argv[1];
  if (preset == "healthy-dgx-h100")
    NodeBuilder::healthyDgxH100().write(argv[2]);
  else if (preset == "healthy-roce")
    NodeBuilder::healthyRoce().write(argv[2]);
  else if (preset == "empty-pod")
    NodeBuilder::emptyPod().write(argv[2]);
  else if (preset == "example-dgx-h100")
    examplePreset().write(argv[2]);
  else {
    std::fprintf(stderr, "make_node_fixture: unknown preset '%s'\n", preset.c_str());
    return 2;
  }
  return 0;
}
