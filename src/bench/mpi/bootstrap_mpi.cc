// The mpi bootstrap (see bootstrap.h): under mpirun the launcher already
// knows every rank, so rank and size come from MPI_COMM_WORLD and the
// allgather is MPI_Allgather of the lengths plus MPI_Allgatherv of the
// blobs, over whatever MPI's own transport is told to use
// (btl_tcp_if_include: the control interface). railkit's data plane still
// uses --data-if. MPI is initialised once per process and finalised when the
// bootstrap goes away, after the transport (runBench destroys it first).
// The C API only: the deprecated C++ bindings would need libmpi_cxx.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "bench/bootstrap.h"

namespace railkit::bench {
namespace {

std::string mpiErrorText(int code) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int len = 0;
  MPI_Error_string(code, text, &len);
  return std::string(text, static_cast<std::size_t>(len));
}

class MpiBootstrap final : public Bootstrap {
 public:
  MpiBootstrap(int rank, int size) : rank_(rank), size_(size) {}
  ~MpiBootstrap() override {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Finalize();
  }
  const char* kind() const override { return "mpi"; }
  int rank() const override { return rank_; }
  int size() const override { return size_; }

  Result<std::vector<std::string>> allgather(const std::string& mine) override {
    if (mine.size() > kMaxBlobBytes) {
      return makeError(ErrorCode::kInternal,
                       "bootstrap blob of " + std::to_string(mine.size()) + " bytes is too large");
    }
    int len = static_cast<int>(mine.size());
    std::vector<int> lens(static_cast<std::size_t>(size_)), offsets(static_cast<std::size_t>(size_));
    if (int rc = MPI_Allgather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, MPI_COMM_WORLD);
        rc != MPI_SUCCESS) {
      return failure("MPI_Allgather", rc);
    }
    int total = 0;
    for (int r = 0; r < size_; ++r) {
      if (lens[r] < 0 || static_cast<std::size_t>(lens[r]) > kMaxBlobBytes) {
        return makeError(ErrorCode::kPeerLost, "rank " + std::to_string(r) + " announced a blob of " +
                                                   std::to_string(lens[r]) + " bytes through MPI");
      }
      offsets[r] = total;
      total += lens[r];
    }
    std::vector<char> all(static_cast<std::size_t>(total) + 1);
    if (int rc = MPI_Allgatherv(mine.data(), len, MPI_CHAR, all.data(), lens.data(), offsets.data(), MPI_CHAR,
                                MPI_COMM_WORLD);
        rc != MPI_SUCCESS) {
      return failure("MPI_Allgatherv", rc);
    }
    std::vector<std::string> out;
    for (int r = 0; r < size_; ++r)
      out.emplace_back(all.data() + offsets[r], static_cast<std::size_t>(lens[r]));
    return out;
  }

  Result<std::vector<std::string>> gather(const std::string& mine) override {
    if (mine.size() > kMaxGatherBytes) {
      return makeError(ErrorCode::kInternal,
                       "bootstrap blob of " + std::to_string(mine.size()) + " bytes is too large");
    }
    int len = static_cast<int>(mine.size());
    std::vector<int> lens(static_cast<std::size_t>(size_)), offsets(static_cast<std::size_t>(size_));
    if (int rc = MPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
        rc != MPI_SUCCESS) {
      return failure("MPI_Gather", rc);
    }
    long long total = 0;
    if (rank_ == 0) {
      for (int r = 0; r < size_; ++r) {
        if (lens[r] < 0 || static_cast<std::size_t>(lens[r]) > kMaxGatherBytes ||
            total + lens[r] > INT32_MAX) {
          return makeError(ErrorCode::kPeerLost, "rank " + std::to_string(r) + " announced a blob of " +
                                                     std::to_string(lens[r]) + " bytes through MPI");
        }
        offsets[r] = static_cast<int>(total);
        total += lens[r];
      }
    }
    std::vector<char> all(static_cast<std::size_t>(total) + 1);
    if (int rc = MPI_Gatherv(mine.data(), len, MPI_CHAR, all.data(), lens.data(), offsets.data(), MPI_CHAR, 0,
                             MPI_COMM_WORLD);
        rc != MPI_SUCCESS) {
      return failure("MPI_Gatherv", rc);
    }
    std::vector<std::string> out;
    if (rank_ != 0) return out;
    for (int r = 0; r < size_; ++r)
      out.emplace_back(all.data() + offsets[r], static_cast<std::size_t>(lens[r]));
    return out;
  }

  Status barrier() override {
    if (int rc = MPI_Barrier(MPI_COMM_WORLD); rc != MPI_SUCCESS) return failure("MPI_Barrier", rc);
    return okStatus();
  }

 private:
  tl::unexpected<Error> failure(const char* what, int rc) const {
    return makeError(ErrorCode::kPeerLost, std::string("mpi bootstrap: ") + what + " failed on rank " +
                                               std::to_string(rank_) + ": " + mpiErrorText(rc));
  }

  int rank_, size_;
};

}  // namespace

Result<std::unique_ptr<Bootstrap>> makeMpiBootstrap(const BootstrapOptions& options) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    int provided = 0;
    if (int rc = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SINGLE, &provided); rc != MPI_SUCCESS) {
      return makeError(ErrorCode::kUnavailable, "MPI_Init_thread failed: " + mpiErrorText(rc));
    }
  }
  // Errors come back as values (and become exit 3), not MPI's default abort.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  auto boot = std::make_unique<MpiBootstrap>(rank, size);
  if (options.size > 1 && (rank != options.rank || size != options.size)) {
    return makeError(ErrorCode::kUsage, "mpirun's environment says rank " + std::to_string(options.rank) +
                                            " of " + std::to_string(options.size) +
                                            " but MPI_COMM_WORLD says rank " + std::to_string(rank) + " of " +
                                            std::to_string(size));
  }
  return std::unique_ptr<Bootstrap>(std::move(boot));
}

}  // namespace railkit::bench
