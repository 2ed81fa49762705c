// Anchor for benchmarks/compare.sh: Gloo's allreduce over its TCP transport.
// Ranks meet through a FileStore directory (the netns "nodes" share one
// filesystem). Prints one line per size on rank 0: bytes, mean time (us),
// busbw (GB/s, nccl-tests definition: algbw * 2(n-1)/n).
//
// Algorithms:
//   ring     gloo::allreduce, RING (reduce-scatter + all-gather in 1 MiB
//            segments; the call PyTorch's ProcessGroupGloo makes). Default.
//   bcube    gloo::allreduce, BCUBE.
//   legacy   gloo::AllreduceRing: every round passes the WHOLE buffer on, so
//            a rank sends (n-1) x bytes instead of 2(n-1)/n x bytes: the
//            same traffic as a ring for 2 ranks, 1.5x more for 3.
//
// Measurement rules (the same as railkit bench's in-place column): one
// buffer per size, allocated and written (so its pages are faulted in)
// before anything is timed and reused by every run; WARMUP untimed runs;
// a barrier; ITERS timed runs back to back, in place; rank 0's mean time.
// The legacy object is built once per size and reused: it mallocs two
// buffer-sized scratch areas in its constructor, and building one per run
// (what this anchor used to do) times 2 x bytes of fresh page faults and
// buffer registration with every run.
// Usage: gloo_allreduce RANK SIZE STORE_DIR DATA_IP MIN MAX FACTOR ITERS WARMUP [ring|bcube|legacy]
#include <gloo/allreduce.h>
#include <gloo/allreduce_ring.h>
#include <gloo/barrier_all_to_all.h>
#include <gloo/math.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/transport/tcp/device.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  if (argc < 10) {
    std::fprintf(stderr,
                 "usage: %s RANK SIZE STORE_DIR DATA_IP MIN MAX FACTOR ITERS WARMUP [ring|bcube|legacy]\n",
                 argv[0]);
    return 2;
  }
  int rank = std::atoi(argv[1]), size = std::atoi(argv[2]);
  std::size_t minb = std::strtoull(argv[5], nullptr, 10), maxb = std::strtoull(argv[6], nullptr, 10);
  std::size_t factor = std::max<std::size_t>(2, std::strtoull(argv[7], nullptr, 10));
  int iters = std::atoi(argv[8]), warmup = std::atoi(argv[9]);
  std::string algo = argc > 10 ? argv[10] : "ring";
  if (algo != "ring" && algo != "bcube" && algo != "legacy") {
    std::fprintf(stderr, "unknown algorithm %s\n", algo.c_str());
    return 2;
  }
  gloo::transport::tcp::attr attr;
  attr.hostname = argv[4];
  attr.ai_family = AF_INET;
  auto dev = gloo::transport::tcp::CreateDevice(attr);
  gloo::rendezvous::FileStore store(argv[3]);
  auto ctx = std::make_shared<gloo::rendezvous::Context>(rank, size);
  ctx->setTimeout(std::chrono::seconds(120));
  ctx->connectFullMesh(store, dev);
  for (std::size_t bytes = minb; bytes <= maxb; bytes *= factor) {
    std::size_t count = bytes / sizeof(float);
    std::vector<float> data(count, 1.0f);
    std::vector<float*> ptrs{data.data()};
    std::unique_ptr<gloo::AllreduceRing<float>> legacy;
    if (algo == "legacy")
      legacy = std::make_unique<gloo::AllreduceRing<float>>(ctx, ptrs, static_cast<int>(count));
    std::function<void()> run = [&] {
      if (legacy) {
        legacy->run();
        return;
      }
      gloo::AllreduceOptions opts(ctx);
      opts.setAlgorithm(algo == "bcube" ? gloo::AllreduceOptions::Algorithm::BCUBE
                                        : gloo::AllreduceOptions::Algorithm::RING);
      opts.setInput(data.data(), count);
      opts.setOutput(data.data(), count);
      opts.setReduceFunction(
          static_cast<void (*)(void*, const void*, const void*, size_t)>(&gloo::sum<float>));
      gloo::allreduce(opts);
    };
    for (int i = 0; i < warmup; ++i) run();
    gloo::BarrierAllToAll(ctx).run();
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < iters; ++i) run();
    double us =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / iters;
    double busbw = static_cast<double>(bytes) / 1e3 / us * 2.0 * (size - 1) / size;
    if (rank == 0) std::printf("%zu %.1f %.3f\n", bytes, us, busbw);
  }
  return 0;
}
