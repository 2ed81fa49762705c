/* FAKE libnccl.so.2 for railkit's nccl-backend tests (no GPU here). Single
 * rank only: every collective of one rank is a copy of its input (a sum,
 * product, min or max over one rank is the input itself), send/recv to self
 * are matched in order at ncclGroupEnd. Test hooks in the environment:
 *   FAKE_NCCL_CORRUPT=1   all_reduce flips its first output byte
 *   FAKE_NCCL_RECORD=F    ncclCommInitRank writes NCCL_SOCKET_IFNAME and
 *                         NCCL_IB_HCA as it sees them to file F
 * Built with -DFAKE_NCCL_NO_SEND it lacks ncclSend (a broken library). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" {

typedef int ncclResult_t;
typedef struct {
  char internal[128];
} ncclUniqueId;
struct ncclComm {
  int nranks;
};

static size_t typeSize(int t) {
  switch (t) {
    case 0:
    case 1: return 1;
    case 2:
    case 3:
    case 7: return 4;
    case 4:
    case 5:
    case 8: return 8;
    case 6:
    case 9: return 2;
    default: return 0;
  }
}

ncclResult_t ncclGetVersion(int* v) {
  *v = 22105;
  return 0;
}
const char* ncclGetErrorString(ncclResult_t r) {
  return r == 0 ? "no error" : "fake nccl: invalid argument";
}

ncclResult_t ncclGetUniqueId(ncclUniqueId* id) {
  for (int i = 0; i < 128; ++i) id->internal[i] = (char)(i * 7 + 3);
  return 0;
}

ncclResult_t ncclCommInitRank(struct ncclComm** comm, int nranks, ncclUniqueId id, int rank) {
  /* The id must arrive intact through the bootstrap's hex round trip. */
  for (int i = 0; i < 128; ++i) {
    if (id.internal[i] != (char)(i * 7 + 3)) return 4;
  }
  if (nranks != 1 || rank != 0) return 4;
  const char* record = getenv("FAKE_NCCL_RECORD");
  if (record) {
    FILE* f = fopen(record, "w");
    if (f) {
      const char* s = getenv("NCCL_SOCKET_IFNAME");
      const char* h = getenv("NCCL_IB_HCA");
      fprintf(f, "NCCL_SOCKET_IFNAME=%s\nNCCL_IB_HCA=%s\n", s ? s : "(unset)", h ? h : "(unset)");
      fclose(f);
    }
  }
  *comm = static_cast<ncclComm*>(calloc(1, sizeof **comm));
  (*comm)->nranks = nranks;
  return 0;
}
ncclResult_t ncclCommDestroy(struct ncclComm* c) {
  free(c);
  return 0;
}
ncclResult_t ncclCommAbort(struct ncclComm* c) {
  return ncclCommDestroy(c);
}
ncclResult_t ncclCommGetAsyncError(struct ncclComm* c, ncclResult_t* r) {
  (void)c;
  *r = 0;
  return 0;
}

static ncclResult_t copy(const void* s, void* r, size_t count, int type) {
  size_t sz = typeSize(type);
  if (sz == 0) return 4;
  if (count && s != r) memmove(r, s, count * sz);
  return 0;
}

ncclResult_t ncclAllReduce(const void* s, void* r, size_t n, int t, int op, struct ncclComm* c, void* st) {
  (void)op;
  (void)c;
  (void)st;
  ncclResult_t rc = copy(s, r, n, t);
  const char* corrupt = getenv("FAKE_NCCL_CORRUPT");
  if (rc == 0 && n && corrupt && corrupt[0] == '1') static_cast<unsigned char*>(r)[0] ^= 0x40;
  return rc;
}
ncclResult_t ncclAllGather(const void* s, void* r, size_t n, int t, struct ncclComm* c, void* st) {
  (void)c;
  (void)st;
  return copy(s, r, n, t);
}
ncclResult_t ncclReduceScatter(const void* s, void* r, size_t n, int t, int op, struct ncclComm* c,
                               void* st) {
  (void)op;
  (void)c;
  (void)st;
  return copy(s, r, n, t);
}
ncclResult_t ncclBroadcast(const void* s, void* r, size_t n, int t, int root, struct ncclComm* c, void* st) {
  (void)c;
  (void)st;
  if (root != 0) return 4;
  return copy(s, r, n, t);
}
ncclResult_t ncclReduce(const void* s, void* r, size_t n, int t, int op, int root, struct ncclComm* c,
                        void* st) {
  (void)op;
  (void)c;
  (void)st;
  if (root != 0) return 4;
  return copy(s, r, n, t);
}

/* Self send/recv: queued between GroupStart and GroupEnd, matched FIFO. */
#define kMaxOps 256
static struct {
  const void* buf;
  size_t bytes;
} sends[kMaxOps], recvs[kMaxOps];
static int nsend, nrecv, depth;

static ncclResult_t drain(void) {
  int pairs = nsend < nrecv ? nsend : nrecv;
  for (int i = 0; i < pairs; ++i) {
    if (sends[i].bytes != recvs[i].bytes) return 4;
    if (sends[i].bytes) memmove(const_cast<void*>(recvs[i].buf), sends[i].buf, sends[i].bytes);
  }
  int bad = nsend != nrecv;
  nsend = nrecv = 0;
  return bad ? 4 : 0;
}
ncclResult_t ncclGroupStart(void) {
  ++depth;
  return 0;
}
ncclResult_t ncclGroupEnd(void) {
  if (depth == 0) return 4;
  return --depth == 0 ? drain() : 0;
}
#ifndef FAKE_NCCL_NO_SEND
ncclResult_t ncclSend(const void* s, size_t n, int t, int peer, struct ncclComm* c, void* st) {
  (void)c;
  (void)st;
  if (peer != 0 || nsend == kMaxOps) return 4;
  sends[nsend].buf = s;
  sends[nsend++].bytes = n * typeSize(t);
  return depth ? 0 : drain();
}
#endif
ncclResult_t ncclRecv(void* r, size_t n, int t, int peer, struct ncclComm* c, void* st) {
  (void)c;
  (void)st;
  if (peer != 0 || nrecv == kMaxOps) return 4;
  recvs[nrecv].buf = r;
  recvs[nrecv++].bytes = n * typeSize(t);
  return depth ? 0 : drain();
}

}  // extern "C"
