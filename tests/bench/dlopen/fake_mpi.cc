/* FAKE libmpi.so.40 for railkit's MPI loader tests: Open MPI's symbols as
 * railkit resolves them, for one process (rank 0 of 1: a gather is a copy).
 * Built with
 *   -DFAKE_MPI_KIND=K      what MPI_Get_library_version says: 0 Open MPI 4.1.4
 *                          (Debian's), 1 MPICH 4.0.2, 2 Open MPI 2.1.1
 *   -DFAKE_MPI_NO_BARRIER  without MPI_Barrier (a broken library) */
#include <string.h>

extern "C" {

/* The predefined handles are addresses of these objects. */
char ompi_mpi_comm_world[64];
char ompi_mpi_int[64];
char ompi_mpi_char[64];
char ompi_mpi_errors_return[64];

static int initialized, finalized;

static size_t typeSize(const void* type) {
  return type == ompi_mpi_int ? sizeof(int) : 1;
}

#if FAKE_MPI_KIND == 0
#define FAKE_MPI_VERSION \
  "Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4, repo rev: v4.1.4, May 26, 2022"
#elif FAKE_MPI_KIND == 1
#define FAKE_MPI_VERSION "MPICH Version:\t4.0.2\nMPICH Release date:\tThu Apr  7 12:34:45 CDT 2022\n"
#else
#define FAKE_MPI_VERSION "Open MPI v2.1.1, package: Open MPI builder Distribution, ident: 2.1.1"
#endif

int MPI_Get_library_version(char* version, int* len) {
  strcpy(version, FAKE_MPI_VERSION);
  *len = (int)strlen(version);
  return 0;
}
int MPI_Init_thread(int*, char***, int, int* provided) {
  initialized = 1;
  *provided = 0;
  return 0;
}
int MPI_Initialized(int* flag) {
  *flag = initialized;
  return 0;
}
int MPI_Finalized(int* flag) {
  *flag = finalized;
  return 0;
}
int MPI_Finalize() {
  finalized = 1;
  return 0;
}
int MPI_Comm_set_errhandler(void* comm, void* handler) {
  return comm == ompi_mpi_comm_world && handler == ompi_mpi_errors_return ? 0 : 5;
}
int MPI_Comm_rank(void*, int* rank) {
  *rank = 0;
  return 0;
}
int MPI_Comm_size(void*, int* size) {
  *size = 1;
  return 0;
}
int MPI_Allgather(const void* s, int n, void* t, void* r, int, void*, void*) {
  memcpy(r, s, (size_t)n * typeSize(t));
  return 0;
}
int MPI_Allgatherv(const void* s, int n, void* t, void* r, const int*, const int* displs, void*, void*) {
  memcpy((char*)r + displs[0] * typeSize(t), s, (size_t)n * typeSize(t));
  return 0;
}
int MPI_Gather(const void* s, int n, void* t, void* r, int, void*, int, void*) {
  memcpy(r, s, (size_t)n * typeSize(t));
  return 0;
}
int MPI_Gatherv(const void* s, int n, void* t, void* r, const int*, const int* displs, void*, int, void*) {
  memcpy((char*)r + displs[0] * typeSize(t), s, (size_t)n * typeSize(t));
  return 0;
}
#ifndef FAKE_MPI_NO_BARRIER
int MPI_Barrier(void*) {
  return 0;
}
#endif
int MPI_Error_string(int code, char* text, int* len) {
  strcpy(text, code == 0 ? "MPI_SUCCESS: no errors" : "fake mpi: error");
  *len = (int)strlen(text);
  return 0;
}
}
