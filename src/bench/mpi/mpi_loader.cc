// dlopen/dlsym of Open MPI's libmpi.so.40 into mpi_api.h's table. Every
// symbol is required: a library lacking one is not an Open MPI railkit can
// use, and is reported naming the symbol.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "bench/dl_open.h"
#include "bench/mpi/mpi_api.h"

namespace railkit::bench::mpi {
namespace {

constexpr const char* kPrefix = "mpi bootstrap";
constexpr const char* kHint =
    "install Open MPI (or HPC-X) or point --mpi-lib (RAILKIT_MPI_LIB) at its directory";

Status bindFunctions(const dl::Opened& lib, MpiFunctions& f) {
  const std::string p = kPrefix;
  for (Status s :
       {dl::bind(lib, "MPI_Get_library_version", p, f.get_library_version),
        dl::bind(lib, "MPI_Init_thread", p, f.init_thread),
        dl::bind(lib, "MPI_Initialized", p, f.initialized), dl::bind(lib, "MPI_Finalized", p, f.finalized),
        dl::bind(lib, "MPI_Finalize", p, f.finalize),
        dl::bind(lib, "MPI_Comm_set_errhandler", p, f.comm_set_errhandler),
        dl::bind(lib, "MPI_Comm_rank", p, f.comm_rank), dl::bind(lib, "MPI_Comm_size", p, f.comm_size),
        dl::bind(lib, "MPI_Allgather", p, f.allgather), dl::bind(lib, "MPI_Allgatherv", p, f.allgatherv),
        dl::bind(lib, "MPI_Gather", p, f.gather), dl::bind(lib, "MPI_Gatherv", p, f.gatherv),
        dl::bind(lib, "MPI_Barrier", p, f.barrier), dl::bind(lib, "MPI_Error_string", p, f.error_string)}) {
    if (!s) return s;
  }
  return okStatus();
}

// The predefined handles are the addresses of these objects (mpi.h's
// OMPI_PREDEFINED_GLOBAL), cast to the handle types.
template <class Handle>
Status bindHandle(const dl::Opened& lib, const char* name, Handle& out) {
  auto p = dl::symbol(lib, name, kPrefix);
  if (!p) return tl::unexpected(p.error());
  out = static_cast<Handle>(*p);
  return okStatus();
}

Status bindHandles(const dl::Opened& lib, MpiHandles& h) {
  for (Status s : {bindHandle(lib, "ompi_mpi_comm_world", h.comm_world),
                   bindHandle(lib, "ompi_mpi_int", h.int_type), bindHandle(lib, "ompi_mpi_char", h.char_type),
                   bindHandle(lib, "ompi_mpi_errors_return", h.errors_return)}) {
    if (!s) return s;
  }
  return okStatus();
}

std::string firstLine(const std::string& text) {
  std::string line = text.substr(0, text.find_first_of("\r\n"));
  while (!line.empty() && (line.back() == ' ' || line.back() == '\t')) line.pop_back();
  return line;
}

}  // namespace

Status checkMpiLibraryVersion(const std::string& path, const std::string& version_text) {
  // "Open MPI v4.1.4, package: Debian OpenMPI, ..." (HPC-X: "Open MPI v4.1.5rc2, ...").
  const std::string tag = "Open MPI v";
  std::string line = firstLine(version_text);
  if (line.rfind(tag, 0) == 0) {
    unsigned major = 0;
    std::size_t i = tag.size();
    for (; i < line.size() && line[i] >= '0' && line[i] <= '9' && major < 1000; ++i)
      major = major * 10 + static_cast<unsigned>(line[i] - '0');
    // libmpi.so.40 is the soname of Open MPI 3.0 to 5.x (and so of HPC-X).
    if (i > tag.size() && major >= 3 && major <= 5) return okStatus();
  }
  return makeError(
      ErrorCode::kUnavailable,
      fmt::format("{}: {} is not Open MPI 3.x to 5.x (it says '{}'); railkit uses Open MPI's ABI "
                  "(libmpi.so.40, as in HPC-X); {}",
                  kPrefix, path, line.empty() ? "nothing" : line, kHint));
}

Result<std::shared_ptr<const MpiLibrary>> loadMpi(const std::string& dir, bool loader_path) {
  auto lib = std::make_shared<MpiLibrary>();
  auto opened = dl::openFirst(dir, {"libmpi.so.40", "libmpi.so"}, loader_path, RTLD_NOW | RTLD_GLOBAL,
                              {kPrefix, "libmpi.so.40", kHint});
  if (!opened) return tl::unexpected(opened.error());
  // The version first: another MPI lacks ompi_mpi_comm_world, and "not Open
  // MPI" says more than "has no symbol ompi_mpi_comm_world".
  if (auto s = dl::bind(*opened, "MPI_Get_library_version", kPrefix, lib->mpi.get_library_version); !s)
    return tl::unexpected(s.error());
  // Sized for any MPI, not Open MPI's 256: the library being asked may be
  // MPICH, whose limit is 8192 (its text lists the configure line).
  std::vector<char> text(64 * 1024, '\0');
  int len = 0;
  if (lib->mpi.get_library_version(text.data(), &len) != MPI_SUCCESS) len = 0;
  // Open MPI counts the terminating NUL in `len`.
  auto bounded = static_cast<std::size_t>(std::clamp(len, 0, static_cast<int>(text.size())));
  std::string version(text.data(), strnlen(text.data(), bounded));
  if (auto s = checkMpiLibraryVersion(opened->path, version); !s) return tl::unexpected(s.error());
  if (auto s = bindFunctions(*opened, lib->mpi); !s) return tl::unexpected(s.error());
  if (auto s = bindHandles(*opened, lib->handles); !s) return tl::unexpected(s.error());
  lib->path = opened->path;
  lib->version = firstLine(version);
  return std::shared_ptr<const MpiLibrary>(std::move(lib));
}

}  // namespace railkit::bench::mpi
