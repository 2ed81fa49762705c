# The MPI bootstrap: under mpirun, rank/size and the address allgather come
# from MPI. Compiled against Open MPI's headers (their ABI is libmpi.so.40's,
# which HPC-X shares); libmpi itself is never linked: mpi_loader.cc opens the
# node's own with dlopen when the bootstrap starts (mpi_api.h says why and
# where it looks). Without the headers, bootstrap_common.cc's stand-in says so
# and the env bootstrap remains. The project is C++ only, so the C headers are
# found through pkg-config: Open MPI's own "ompi" first (a machine whose
# default MPI is MPICH still has it), then "mpi", then CMake's FindMPI; the
# headers found must be Open MPI's.
# -DRAILKIT_WITH_MPI=OFF builds without it even where MPI is installed.
option(RAILKIT_WITH_MPI "Build the MPI bootstrap when Open MPI's headers are found" ON)
if(RAILKIT_WITH_MPI)
  find_package(PkgConfig QUIET)
  if(PkgConfig_FOUND)
    pkg_check_modules(RAILKIT_MPI QUIET ompi)
    if(NOT RAILKIT_MPI_FOUND)
      pkg_check_modules(RAILKIT_MPI QUIET mpi)
    endif()
  endif()
  if(RAILKIT_MPI_FOUND)
    set(railkit_mpi_includes ${RAILKIT_MPI_INCLUDE_DIRS})
    set(railkit_mpi_flags ${RAILKIT_MPI_CFLAGS_OTHER})
    set(railkit_mpi_found "pkg-config ${RAILKIT_MPI_MODULE_NAME}")
  else()
    find_package(MPI QUIET COMPONENTS CXX)
    if(MPI_CXX_FOUND)
      set(railkit_mpi_includes ${MPI_CXX_INCLUDE_DIRS})
      set(railkit_mpi_flags ${MPI_CXX_COMPILE_OPTIONS})
      set(railkit_mpi_found "FindMPI")
    endif()
  endif()
  if(railkit_mpi_found)
    include(CheckCXXSourceCompiles)
    set(CMAKE_REQUIRED_INCLUDES ${railkit_mpi_includes})
    set(CMAKE_REQUIRED_FLAGS "${railkit_mpi_flags}")
    check_cxx_source_compiles([[
#define OMPI_SKIP_MPICXX 1
#include <mpi.h>
#if !defined(OPEN_MPI) || OMPI_MAJOR_VERSION < 3 || OMPI_MAJOR_VERSION > 5
#error not Open MPI 3..5
#endif
int main() { return 0; }
]] RAILKIT_MPI_HEADERS_ARE_OPEN_MPI)
    unset(CMAKE_REQUIRED_INCLUDES)
    unset(CMAKE_REQUIRED_FLAGS)
    if(NOT RAILKIT_MPI_HEADERS_ARE_OPEN_MPI)
      set(railkit_mpi_off "the mpi.h found through ${railkit_mpi_found} is not Open MPI 3.x-5.x's; railkit uses "
        "Open MPI's ABI, libmpi.so.40")
      unset(railkit_mpi_found)
    endif()
  endif()
endif()
if(railkit_mpi_found)
  target_sources(railkit_bench PRIVATE
    ${CMAKE_CURRENT_LIST_DIR}/bootstrap_mpi.cc
    ${CMAKE_CURRENT_LIST_DIR}/mpi_loader.cc)
  target_compile_definitions(railkit_bench PUBLIC RAILKIT_HAVE_MPI)
  target_include_directories(railkit_bench SYSTEM PUBLIC ${railkit_mpi_includes})
  target_compile_options(railkit_bench PUBLIC ${railkit_mpi_flags})
  target_link_libraries(railkit_bench PUBLIC ${CMAKE_DL_LIBS})
  message(STATUS "railkit bench: MPI bootstrap (Open MPI headers via ${railkit_mpi_found}; libmpi opened at run time)")
elseif(railkit_mpi_off)
  message(STATUS "railkit bench: MPI bootstrap off (${railkit_mpi_off})")
else()
  message(STATUS "railkit bench: MPI bootstrap off (no MPI headers found)")
endif()
