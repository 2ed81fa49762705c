/* Anchor for benchmarks/compare.sh: MPI_Allreduce (float sum, in place).
 * Prints one line per size on rank 0: bytes, mean time (us), busbw (GB/s,
 * nccl-tests definition: algbw * 2(n-1)/n).
 * Measurement rules (the same as railkit bench's in-place column): one
 * buffer per size, allocated and written before anything is timed and
 * reused by every run; WARMUP untimed runs; a barrier; ITERS timed runs
 * back to back; rank 0's mean time.
 * Usage: mpi_allreduce MIN_BYTES MAX_BYTES FACTOR ITERS WARMUP */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 6) {
    if (rank == 0) fprintf(stderr, "usage: %s MIN MAX FACTOR ITERS WARMUP\n", argv[0]);
    MPI_Finalize();
    return 2;
  }
  size_t minb = strtoull(argv[1], NULL, 10), maxb = strtoull(argv[2], NULL, 10);
  size_t factor = strtoull(argv[3], NULL, 10);
  int iters = atoi(argv[4]), warmup = atoi(argv[5]);
  if (factor < 2) factor = 2;
  for (size_t bytes = minb; bytes <= maxb; bytes *= factor) {
    size_t count = bytes / sizeof(float);
    float* buf = malloc(bytes);
    for (size_t i = 0; i < count; ++i) buf[i] = 1.0f;
    for (int i = 0; i < warmup; ++i) MPI_Allreduce(MPI_IN_PLACE, buf, (int)count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters; ++i) MPI_Allreduce(MPI_IN_PLACE, buf, (int)count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    double us = (MPI_Wtime() - t0) * 1e6 / iters;
    double busbw = (double)bytes / 1e3 / us * 2.0 * (size - 1) / size;
    if (rank == 0) printf("%zu %.1f %.3f\n", bytes, us, busbw);
    free(buf);
  }
  MPI_Finalize();
  return 0;
}
