#pragma once
// `railkit bench` flags and the launcher's environment, checked before any
// rank runs: every mistake is one kUsage error (one line, exit 2) here,
// instead of a bad_alloc, a "data corruption" verdict or one message per
// forked rank later.

#include <cstdint>
#include <optional>
#include <string>

#include "core/environment.h"
#include "core/result.h"

namespace railkit::bench {

inline constexpr double kMaxTimeoutSeconds = 86400;  // a day
inline constexpr int kMaxConnectionsPerPeer = 16;    // the tcp transport's limit
inline constexpr std::uint64_t kMaxSocketBufferBytes = 256ull
                                                       << 20;  // --socket-buffer; setsockopt takes an int
inline constexpr int kMaxRanksPerNode = 64;                    // --local and --nproc-per-node
inline constexpr int kMaxIters = 1000000;                      // -n and -w: past this a sweep runs for days

// The options as given. Defaults, bounds and help of the tabled ones live in
// benchOptions() (bench_options.h); BenchFlags() applies bench's defaults.
struct BenchFlags {
  BenchFlags();
  std::string op;
  std::string min_bytes, max_bytes, factor, step;
  int iters = 0, warmup = 0, check = 0, average = 0, root = 0;
  std::string redop, type;
  std::string backend;
  std::string data_if, ctrl_if;
  int local = 0;
  int nproc_per_node = 0;  // --nproc-per-node G: RANK/WORLD_SIZE count nodes; G ranks forked here
  std::string job_id;
  std::string job_token, job_token_file;
  double bootstrap_timeout = 0, stall_timeout = 0;
  std::optional<double> expect_busbw;
  std::string expect_line_rate;
  bool expect_line_rate_set = false;
  std::optional<double> nic_gbps;
  std::string nccl_lib;
  std::string ucx_lib;  // --ucx-lib; empty: RAILKIT_UCX_LIB, else the loader path only
  std::string mpi_lib;  // --mpi-lib; empty: RAILKIT_MPI_LIB, else the loader path only
  int connections = 0;
  std::string socket_buffer;  // tcp: SO_SNDBUF/SO_RCVBUF per stream, 0 = kernel autotuning
  bool one_way = false;
};

// Who this rank is and where the rendezvous is, from --local N or the
// environment (torchrun/Kubernetes RANK, WORLD_SIZE, MASTER_ADDR,
// MASTER_PORT; mpirun OMPI_COMM_WORLD_* / PMI_*).
struct Launch {
  std::string bootstrap = "env";  // local, env, mpi
  int rank = 0;
  int size = 1;
  std::string master_addr;
  int master_port = 29500;
  int ranks_on_this_host = 1;  // for the memory check
  // --nproc-per-node G: this node forks ranks rank .. rank+G-1 (rank is
  // node rank x G), as torchrun --nproc-per-node does; 0 when one rank runs.
  int ranks_to_fork = 0;
};

// kUsage naming the variable and its value for anything that is not a
// number in range: a port is 1..65535, a world size 1..65536, a rank below it.
Result<Launch> resolveLaunch(const BenchFlags& flags, const Environment& env, bool mpi_built_in);

// Buffer bytes one rank allocates for `op` at `max_bytes` (an upper bound).
long double bufferBytesPerRank(const std::string& op, std::uint64_t max_bytes);

// Every flag in range, the op known, -r below the world size, the buffers
// within `memory_bytes` (0: unknown, not checked).
Status validateBenchFlags(const BenchFlags& flags, const Launch& launch, std::uint64_t memory_bytes);

// Physical memory of this host (0 when unknown).
std::uint64_t physicalMemoryBytes();

// The job token from --job-token, --job-token-file or RAILKIT_JOB_TOKEN
// (in that order; the flag and the file together are an error); empty
// when none is given.
Result<std::string> resolveJobToken(const BenchFlags& flags, const Environment& env);

}  // namespace railkit::bench
