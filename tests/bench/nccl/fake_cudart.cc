/* FAKE libcudart for railkit's nccl-backend tests (no GPU here). It keeps the
 * CUDA runtime's C ABI for the calls railkit makes, with "device" memory in
 * host RAM and events that read the host clock. It is a test double of the
 * loading and plumbing, not a CUDA implementation. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

extern "C" {

typedef int cudaError_t;
struct CUevent_st {
  double ms;
};
static int kStream = 0;

static double nowMs(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

cudaError_t cudaGetDeviceCount(int* n) {
  const char* v = getenv("FAKE_CUDA_DEVICES");
  *n = v ? atoi(v) : 1;
  return 0;
}
cudaError_t cudaSetDevice(int d) {
  int n = 0;
  cudaGetDeviceCount(&n);
  return d < n ? 0 : 101; /* cudaErrorInvalidDevice */
}
cudaError_t cudaMalloc(void** p, size_t bytes) {
  *p = malloc(bytes ? bytes : 1);
  return *p ? 0 : 2; /* cudaErrorMemoryAllocation */
}
cudaError_t cudaFree(void* p) {
  free(p);
  return 0;
}
cudaError_t cudaMemcpy(void* dst, const void* src, size_t bytes, int kind) {
  if (kind != 1 && kind != 2) return 21; /* cudaErrorInvalidMemcpyDirection */
  if (bytes) memmove(dst, src, bytes);
  return 0;
}
cudaError_t cudaStreamCreate(void** s) {
  *s = &kStream;
  return 0;
}
cudaError_t cudaStreamSynchronize(void* s) {
  (void)s;
  return 0;
}
cudaError_t cudaStreamQuery(void* s) {
  (void)s;
  return 0;
}
cudaError_t cudaEventCreate(struct CUevent_st** e) {
  *e = static_cast<CUevent_st*>(calloc(1, sizeof **e));
  return *e ? 0 : 2;
}
cudaError_t cudaEventRecord(struct CUevent_st* e, void* s) {
  (void)s;
  e->ms = nowMs();
  return 0;
}
cudaError_t cudaEventSynchronize(struct CUevent_st* e) {
  (void)e;
  return 0;
}
cudaError_t cudaEventElapsedTime(float* ms, struct CUevent_st* a, struct CUevent_st* b) {
  *ms = (float)(b->ms - a->ms);
  return 0;
}
const char* cudaGetErrorString(cudaError_t e) {
  return e == 0 ? "no error" : "fake cuda error";
}

}  // extern "C"
