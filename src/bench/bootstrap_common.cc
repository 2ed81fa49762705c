// Launcher detection shared by every bootstrap, and the MPI stand-in for
// builds without MPI (bootstrap_mpi.cc replaces it under RAILKIT_HAVE_MPI).
#include "bench/bootstrap.h"

namespace railkit::bench {

bool launchedByMpi(const Environment& env) {
  return lookup(env, "OMPI_COMM_WORLD_SIZE").has_value() || lookup(env, "PMI_SIZE").has_value();
}

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
