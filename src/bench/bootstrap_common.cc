// Whether the MPI bootstrap is built in, and its stand-in for builds without
// MPI (bootstrap_mpi.cc replaces it under RAILKIT_HAVE_MPI).
#include "bench/bootstrap.h"

namespace railkit::bench {

bool mpiBootstrapBuiltIn() {
#ifdef RAILKIT_HAVE_MPI
  return true;
#else
  return false;
#endif
}

#ifndef RAILKIT_HAVE_MPI
Result<std::unique_ptr<Bootstrap>> makeMpiBootstrap(const BootstrapOptions&) {
  return makeError(ErrorCode::kUnavailable, "this railkit was built without MPI; use the env bootstrap");
}
#endif

}  // namespace railkit::bench
