#pragma once
// The bootstrap is how the ranks of a job find each other before the data
// plane exists: it knows this rank's number and the world size, and gives an
// allgather of small blobs (each rank publishes its data-plane address, host
// and interface; every rank receives all of them in rank order) and a
// barrier. It runs over the control plane only; the data plane never uses it
// for bulk bytes. Implementations:
//   env   RANK/WORLD_SIZE/MASTER_ADDR/MASTER_PORT (torchrun, Kubernetes
//         Indexed Job). Rank 0 serves a rendezvous on MASTER_PORT on the
//         control interface; every message carries a protocol version and
//         the job id (and, with --job-token, an HMAC answering a nonce);
//         strangers are served concurrently and dropped, never fatal; nobody
//         waits longer than the bootstrap timeout.
//   local --local N: the CLI forks N ranks on lo; same protocol as env.
//   mpi   under mpirun (OMPI_COMM_WORLD_*, PMI_*): rank/size from the launcher,
//         allgather through MPI (bootstrap_mpi.cc, RAILKIT_HAVE_MPI: built
//         with Open MPI's headers; libmpi.so.40 is opened at run time).
// Every call returns kTimeout / kPeerLost naming the missing rank(s).

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/environment.h"
#include "core/result.h"

namespace railkit::bench {

class Bootstrap {
 public:
  virtual ~Bootstrap() = default;
  virtual const char* kind() const = 0;  // "env", "local", "mpi"
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Every rank contributes `mine` (at most kMaxBlobBytes); returns all blobs
  // indexed by rank.
  virtual Result<std::vector<std::string>> allgather(const std::string& mine) = 0;
  // Every rank contributes `mine` (at most kMaxGatherBytes); rank 0 gets all
  // blobs indexed by rank, the others an empty vector. What only rank 0
  // needs (a node's report, a rank's pairs timings) goes this way: at 1024
  // ranks an allgather would send every blob to every rank.
  virtual Result<std::vector<std::string>> gather(const std::string& mine) = 0;
  // Nobody returns before every rank has called it; the messages carry no
  // payload, so it costs 2(n-1) short lines through rank 0, not an allgather.
  virtual Status barrier() = 0;
  // Best effort, before a rank gives up on the job: rank 0's next collective
  // call fails with kPeerLost quoting `why`, instead of "connection closed".
  // A rank that lost its pairs partner thus names that partner to rank 0.
  virtual void abort(const std::string& why) { (void)why; }
  static constexpr std::size_t kMaxBlobBytes = 64 * 1024;
  static constexpr std::size_t kMaxGatherBytes = 4 * 1024 * 1024;
};

struct BootstrapOptions {
  std::string job_id;           // --job-id / RAILKIT_JOB_ID / derived
  std::string control_address;  // IPv4 of the control interface (bind)
  std::string master_addr;      // MASTER_ADDR
  int master_port = 29500;      // MASTER_PORT
  int rank = 0;
  int size = 1;
  std::chrono::milliseconds timeout{300000};  // --bootstrap-timeout
  std::string kind = "env";                   // reported by kind(): "env" or "local"
  // --local: rank 0 serves on this socket, bound and listening before the
  // fork, so no other rank's listener can take the port in between.
  int inherited_listener = -1;
  // --job-token / --job-token-file / RAILKIT_JOB_TOKEN; empty: none. With a
  // token, hellos are authenticated (see rendezvous.h).
  std::string job_token;
  // Per-connection hello deadline at rank 0.
  std::chrono::milliseconds hello_timeout{5000};
  // How often rank 0 names the ranks a collective call still waits for.
  std::chrono::milliseconds waiting_notice{10000};
  // Where rank 0 reports dropped strangers (one line each, rate-limited) and
  // the ranks it is waiting for; unset: standard error.
  std::function<void(const std::string&)> notice;
  // mpi: --mpi-lib / RAILKIT_MPI_LIB, searched before the loader path (mpi/mpi_api.h).
  std::string mpi_lib_dir;
};

// The env/local rendezvous (TCP on the control plane, see rendezvous.h for the wire format).
Result<std::unique_ptr<Bootstrap>> makeTcpBootstrap(const BootstrapOptions& options);

// Under mpirun; kUnavailable when built without MPI. Implemented in bootstrap_mpi.cc.
Result<std::unique_ptr<Bootstrap>> makeMpiBootstrap(const BootstrapOptions& options);

// Whether makeMpiBootstrap can work (this railkit was built with the MPI headers;
// whether libmpi.so.40 loads is known only when it runs).
bool mpiBootstrapBuiltIn();

// Job id default: derived from MASTER_ADDR, MASTER_PORT and WORLD_SIZE.
std::string defaultJobId(const std::string& master_addr, int master_port, int world_size);

}  // namespace railkit::bench
