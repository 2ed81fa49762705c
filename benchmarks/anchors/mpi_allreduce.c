/* Anchor for benchmarks/compare.sh: MPI_Allreduce (float sum). Prints one
 * line per size on rank 0: bytes, mean time (us), busbw (GB/s).
 * Usage: mpi_allreduce MIN_BYTES MAX_BYTES ITERS */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 4) {
    if (rank == 0) fprintf(stderr, "usage: %s MIN MAX ITERS\n", argv[0]);
    MPI_Finalize();
    return 2;
  }
  size_t minb = strtoull(argv[1], NULL, 10), maxb = strtoull(argv[2], NULL, 10);
  int iters = atoi(argv[3]);
  for (size_t bytes = minb; bytes <= maxb; bytes *= 2) {
    size_t count = bytes / sizeof(float);
    float* in = malloc(bytes);
    float* out = malloc(bytes);
    for (size_t i = 0; i < count; ++i) in[i] = 1.0f;
    MPI_Allreduce(in, out, (int)count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters; ++i) MPI_Allreduce(in, out, (int)count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    double us = (MPI_Wtime() - t0) * 1e6 / iters;
    double busbw = (double)bytes / 1e3 / us * 2.0 * (size - 1) / size;
    if (rank == 0) printf("%zu %.1f %.3f\n", bytes, us, busbw);
    free(in);
    free(out);
  }
  MPI_Finalize();
  return 0;
}
