#pragma once
// Open MPI's libmpi.so.40, opened with dlopen when the mpi bootstrap starts,
// never linked. Why: the release binary must run with nothing but glibc, and
// a job launched by the image's mpirun (HPC-X's, or Debian's Open MPI) must
// talk to that same MPI: libmpi is the launcher's partner (PMIx, the orted
// wire-up), so the one on the node, not one chosen at build time, is right.
// railkit is compiled against Open MPI's headers; the function table takes
// each declaration from them.
//
// The ABI is Open MPI's (libmpi.so.40: Open MPI 3.x to 5.x, and HPC-X, which
// is Open MPI). In it the predefined handles (MPI_COMM_WORLD, MPI_INT,
// MPI_CHAR, MPI_ERRORS_RETURN) are addresses of global objects in libmpi
// (ompi_mpi_comm_world, ...), so they are looked up like the functions; the
// header's macros, which name those objects, must not be used. Another MPI
// (MPICH, Intel MPI) is refused after MPI_Get_library_version.
//
// libmpi is opened RTLD_GLOBAL: Open MPI dlopens its own plugins (mca_*.so),
// which expect libmpi's symbols in the global scope.
//
// Where it is looked for, in order (libmpi.so.40, then libmpi.so, at one
// place before the next):
//   1. --mpi-lib DIR (or RAILKIT_MPI_LIB, read by the CLI);
//   2. the loader's own search (LD_LIBRARY_PATH, ld.so.cache, /usr/lib...).
// A miss is kUnavailable with one line naming every place searched.

// The C API only: the deprecated C++ bindings would need libmpi_cxx.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <memory>
#include <string>

#include "core/result.h"

namespace railkit::bench::mpi {

struct MpiFunctions {
  decltype(&::MPI_Get_library_version) get_library_version;
  decltype(&::MPI_Init_thread) init_thread;
  decltype(&::MPI_Initialized) initialized;
  decltype(&::MPI_Finalized) finalized;
  decltype(&::MPI_Finalize) finalize;
  decltype(&::MPI_Comm_set_errhandler) comm_set_errhandler;
  decltype(&::MPI_Comm_rank) comm_rank;
  decltype(&::MPI_Comm_size) comm_size;
  decltype(&::MPI_Allgather) allgather;
  decltype(&::MPI_Allgatherv) allgatherv;
  decltype(&::MPI_Gather) gather;
  decltype(&::MPI_Gatherv) gatherv;
  decltype(&::MPI_Barrier) barrier;
  decltype(&::MPI_Error_string) error_string;
};

// MPI_COMM_WORLD, MPI_INT, MPI_CHAR, MPI_ERRORS_RETURN of the opened library.
struct MpiHandles {
  MPI_Comm comm_world = nullptr;
  MPI_Datatype int_type = nullptr;
  MPI_Datatype char_type = nullptr;
  MPI_Errhandler errors_return = nullptr;
};

// libmpi open, every symbol resolved, Open MPI's ABI confirmed. Never closed:
// MPI cannot be initialised twice in a process anyway, and its plugins and
// progress threads live until exit.
struct MpiLibrary {
  MpiFunctions mpi{};
  MpiHandles handles{};
  std::string path;     // what was opened, for messages
  std::string version;  // MPI_Get_library_version's first line
};

// Opens and checks libmpi. `loader_path` false searches only DIR (tests).
Result<std::shared_ptr<const MpiLibrary>> loadMpi(const std::string& mpi_lib_dir, bool loader_path = true);

// The ABI rule alone, on MPI_Get_library_version's text: "Open MPI vN..."
// with N from 3 to 5 (libmpi.so.40). kUnavailable, one line naming `path`
// and the library's own first line, for anything else.
Status checkMpiLibraryVersion(const std::string& path, const std::string& version_text);

}  // namespace railkit::bench::mpi
