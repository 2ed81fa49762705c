// Anchor for benchmarks/compare.sh: Gloo's ring allreduce over its TCP
// transport. Ranks meet through a FileStore directory (the netns "nodes"
// share one filesystem). Prints one line per size: bytes, mean time (us),
// busbw (GB/s, nccl-tests definition: algbw * 2(n-1)/n).
// Usage: gloo_allreduce RANK SIZE STORE_DIR DATA_IP MIN_BYTES MAX_BYTES ITERS [ring|chunked]
#include <gloo/allreduce.h>
#include <gloo/allreduce_ring.h>
#include <gloo/allreduce_ring_chunked.h>
#include <gloo/barrier_all_to_all.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/transport/tcp/device.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  if (argc < 8) {
    std::fprintf(stderr, "usage: %s RANK SIZE STORE_DIR DATA_IP MIN MAX ITERS [ring|chunked]\n", argv[0]);
    return 2;
  }
  int rank = std::atoi(argv[1]), size = std::atoi(argv[2]);
  std::size_t minb = std::strtoull(argv[5], nullptr, 10), maxb = std::strtoull(argv[6], nullptr, 10);
  int iters = std::atoi(argv[7]);
  std::string algo = argc > 8 ? argv[8] : "ring";
  gloo::transport::tcp::attr attr;
  attr.hostname = argv[4];
  attr.ai_family = AF_INET;
  auto dev = gloo::transport::tcp::CreateDevice(attr);
  gloo::rendezvous::FileStore store(argv[3]);
  auto ctx = std::make_shared<gloo::rendezvous::Context>(rank, size);
  ctx->connectFullMesh(store, dev);
  for (std::size_t bytes = minb; bytes <= maxb; bytes *= 2) {
    std::size_t count = bytes / sizeof(float);
    std::vector<float> data(count, 1.0f);
    std::vector<float*> ptrs{data.data()};
    auto run = [&] {
      if (algo == "chunked") {
        gloo::AllreduceRingChunked<float> ar(ctx, ptrs, static_cast<int>(count));
        ar.run();
      } else {
        gloo::AllreduceRing<float> ar(ctx, ptrs, static_cast<int>(count));
        ar.run();
      }
    };
    run();  // warm-up
    gloo::BarrierAllToAll(ctx).run();
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < iters; ++i) run();
    double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / iters;
    double busbw = static_cast<double>(bytes) / 1e3 / us * 2.0 * (size - 1) / size;
    if (rank == 0) std::printf("%zu %.1f %.3f\n", bytes, us, busbw);
  }
  return 0;
}
