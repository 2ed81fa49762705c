#pragma once
// A collective engine is a backend that runs whole collectives itself (NCCL)
// instead of moving bytes for railkit's own algorithms. The harness stays the
// same for both: it seeds and checks host buffers and prints the same rows;
// with an engine it hands the engine those host buffers (bind), copies them
// to the engine's memory (upload), runs the op `iters` times back to back
// timed by the engine's own clock (launch; CUDA events for NCCL), and copies
// the results back (download) before checking. A Transport whose
// caps().collectives is true also is a CollectiveEngine.

#include <cstddef>
#include <vector>

#include "bench/collectives/collective.h"
#include "core/result.h"

namespace railkit::bench {

struct HostBlock {
  void* data = nullptr;
  std::size_t bytes = 0;
};

class CollectiveEngine {
 public:
  virtual ~CollectiveEngine() = default;
  // Mirrors every host block in engine memory; args.send/recv point inside
  // the blocks (in place: both inside one block).
  virtual Status bind(CollectiveOp op, const CollectiveArgs& args, const std::vector<HostBlock>& blocks) = 0;
  virtual Status upload() = 0;
  // Runs the bound op `iters` times; mean microseconds per run.
  virtual Result<double> launch(int iters) = 0;
  virtual Status download() = 0;
};

}  // namespace railkit::bench
