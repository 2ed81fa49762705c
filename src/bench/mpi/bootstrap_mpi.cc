// The mpi bootstrap (see bootstrap.h): under mpirun the launcher already
// knows every rank, so rank and size come from MPI_COMM_WORLD and the
// allgather is MPI_Allgather of the lengths plus MPI_Allgatherv of the
// blobs, over whatever MPI's own transport is told to use
// (btl_tcp_if_include: the control interface). railkit's data plane still
// uses --data-if. MPI is initialised once per process and finalised when the
// bootstrap goes away, after the transport (runBench destroys it first).
// Every MPI call and handle goes through the library opened at run time
// (mpi_api.h): never MPI_COMM_WORLD & co., which would link libmpi.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bench/bootstrap.h"
#include "bench/mpi/mpi_api.h"

namespace railkit::bench {
namespace {

using mpi::MpiLibrary;

std::string mpiErrorText(const MpiLibrary& lib, int code) {
  char text[MPI_MAX_ERROR_STRING + 1] = {};
  int len = 0;
  if (lib.mpi.error_string(code, text, &len) != MPI_SUCCESS) return "MPI error " + std::to_string(code);
  return std::string(text, static_cast<std::size_t>(std::clamp(len, 0, MPI_MAX_ERROR_STRING)));
}

class MpiBootstrap final : public Bootstrap {
 public:
  MpiBootstrap(std::shared_ptr<const MpiLibrary> lib, int rank, int size)
      : lib_(std::move(lib)), f_(lib_->mpi), world_(lib_->handles.comm_world), rank_(rank), size_(size) {}
  ~MpiBootstrap() override {
    int finalized = 0;
    f_.finalized(&finalized);
    if (!finalized) f_.finalize();
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
    if (int rc = f_.allgather(&len, 1, intType(), lens.data(), 1, intType(), world_); rc != MPI_SUCCESS) {
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
    if (int rc = f_.allgatherv(mine.data(), len, charType(), all.data(), lens.data(), offsets.data(),
                               charType(), world_);
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
    if (int rc = f_.gather(&len, 1, intType(), lens.data(), 1, intType(), 0, world_); rc != MPI_SUCCESS) {
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
    if (int rc = f_.gatherv(mine.data(), len, charType(), all.data(), lens.data(), offsets.data(), charType(),
                            0, world_);
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
    if (int rc = f_.barrier(world_); rc != MPI_SUCCESS) return failure("MPI_Barrier", rc);
    return okStatus();
  }

 private:
  tl::unexpected<Error> failure(const char* what, int rc) const {
    return makeError(ErrorCode::kPeerLost, std::string("mpi bootstrap: ") + what + " failed on rank " +
                                               std::to_string(rank_) + ": " + mpiErrorText(*lib_, rc));
  }
  MPI_Datatype intType() const { return lib_->handles.int_type; }
  MPI_Datatype charType() const { return lib_->handles.char_type; }

  std::shared_ptr<const MpiLibrary> lib_;  // open for as long as MPI is in use
  const mpi::MpiFunctions& f_;
  MPI_Comm world_;
  int rank_, size_;
};

}  // namespace

Result<std::unique_ptr<Bootstrap>> makeMpiBootstrap(const BootstrapOptions& options) {
  auto lib = mpi::loadMpi(options.mpi_lib_dir);
  if (!lib) return tl::unexpected(lib.error());
  const mpi::MpiFunctions& f = (*lib)->mpi;
  MPI_Comm world = (*lib)->handles.comm_world;
  int initialized = 0;
  f.initialized(&initialized);
  if (!initialized) {
    int provided = 0;
    if (int rc = f.init_thread(nullptr, nullptr, MPI_THREAD_SINGLE, &provided); rc != MPI_SUCCESS) {
      return makeError(ErrorCode::kUnavailable, "MPI_Init_thread failed: " + mpiErrorText(**lib, rc));
    }
  }
  // Errors come back as values (and become exit 3), not MPI's default abort.
  f.comm_set_errhandler(world, (*lib)->handles.errors_return);
  int rank = 0, size = 0;
  f.comm_rank(world, &rank);
  f.comm_size(world, &size);
  auto boot = std::make_unique<MpiBootstrap>(std::move(*lib), rank, size);
  if (options.size > 1 && (rank != options.rank || size != options.size)) {
    return makeError(ErrorCode::kUsage, "mpirun's environment says rank " + std::to_string(options.rank) +
                                            " of " + std::to_string(options.size) +
                                            " but MPI_COMM_WORLD says rank " + std::to_string(rank) + " of " +
                                            std::to_string(size));
  }
  return std::unique_ptr<Bootstrap>(std::move(boot));
}

}  // namespace railkit::bench
