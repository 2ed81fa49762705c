# The MPI bootstrap: under mpirun, rank/size and the address allgather come
# from MPI (OpenMPI from Debian). Without MPI, bootstrap_common.cc's stand-in
# says so and the env bootstrap remains. The project is C++ only, so MPI's C
# library is found through pkg-config ("mpi", which OpenMPI and MPICH ship),
# falling back to CMake's FindMPI C++ component.
# -DRAILKIT_WITH_MPI=OFF builds without it even where MPI is installed.
option(RAILKIT_WITH_MPI "Build the MPI bootstrap when MPI is found" ON)
if(RAILKIT_WITH_MPI)
  find_package(PkgConfig QUIET)
  if(PkgConfig_FOUND)
    pkg_check_modules(RAILKIT_MPI IMPORTED_TARGET mpi)
  endif()
  if(RAILKIT_MPI_FOUND)
    set(railkit_mpi_target PkgConfig::RAILKIT_MPI)
  else()
    find_package(MPI QUIET COMPONENTS CXX)
    if(MPI_CXX_FOUND)
      set(railkit_mpi_target MPI::MPI_CXX)
    endif()
  endif()
endif()
if(railkit_mpi_target)
  target_sources(railkit_bench PRIVATE ${CMAKE_CURRENT_LIST_DIR}/bootstrap_mpi.cc)
  target_compile_definitions(railkit_bench PRIVATE RAILKIT_HAVE_MPI)
  target_link_libraries(railkit_bench PUBLIC ${railkit_mpi_target})
  message(STATUS "railkit bench: MPI bootstrap (${railkit_mpi_target})")
else()
  message(STATUS "railkit bench: MPI bootstrap off (no MPI found)")
endif()
