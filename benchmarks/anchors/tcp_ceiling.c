/* The two-way TCP ceiling for benchmarks/compare.sh: the traffic of a ring
 * with nothing else in it. Every node sends BYTES to the next node and
 * receives BYTES from the previous one at the same time, over STREAMS plain
 * TCP connections each way (one sender thread per outgoing stream, one
 * receiver thread per incoming stream). With 2 nodes "next" and "previous"
 * are the same node, so each link carries both directions at once. Node 0
 * prints its per-direction rate in GB/s: the best busbw a ring all_reduce
 * can reach on these links (busbw is what each link carries per second).
 * Measurement rules as for the collectives: buffers allocated and written
 * once before timing and reused; WARMUP untimed transfers of BYTES, then a
 * ring barrier, then ITERS timed transfers back to back; the mean.
 * Usage: tcp_ceiling RANK PORT STREAMS BYTES ITERS WARMUP IP0 IP1 [IP2...]
 * (node i listens on IPi:PORT and connects to IP(i+1):PORT). */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { kChunk = 1 << 20, kMaxStreams = 64 };

struct job {
  int fd, send;
  size_t bytes;
  char* buf;
};

static void* mover(void* arg) {
  struct job* j = arg;
  size_t left = j->bytes;
  while (left > 0) {
    size_t n = left < kChunk ? left : kChunk;
    ssize_t r = j->send ? send(j->fd, j->buf, n, MSG_NOSIGNAL) : recv(j->fd, j->buf, n, 0);
    if (r <= 0) { perror(j->send ? "send" : "recv"); exit(1); }
    left -= (size_t)r;
  }
  return NULL;
}

static struct sockaddr_in addr(const char* ip, int port) {
  struct sockaddr_in sa;
  memset(&sa, 0, sizeof sa);
  sa.sin_family = AF_INET;
  sa.sin_port = htons((unsigned short)port);
  inet_pton(AF_INET, ip, &sa.sin_addr);
  return sa;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Every node sends one byte to the next and waits for one from the previous
 * on stream 0: no node starts before its upstream neighbour is ready. */
static void ring_barrier(int out, int in) {
  char b = 0;
  if (send(out, &b, 1, MSG_NOSIGNAL) != 1 || recv(in, &b, 1, MSG_WAITALL) != 1) { perror("barrier"); exit(1); }
}

static void transfer(int streams, const int* out, const int* in, size_t bytes, char* const* bufs) {
  pthread_t th[2 * kMaxStreams];
  struct job jobs[2 * kMaxStreams];
  for (int i = 0; i < streams; ++i) {
    jobs[2 * i] = (struct job){out[i], 1, bytes, bufs[2 * i]};
    jobs[2 * i + 1] = (struct job){in[i], 0, bytes, bufs[2 * i + 1]};
  }
  for (int i = 0; i < 2 * streams; ++i) pthread_create(&th[i], NULL, mover, &jobs[i]);
  for (int i = 0; i < 2 * streams; ++i) pthread_join(th[i], NULL);
}

int main(int argc, char** argv) {
  if (argc < 9) {
    fprintf(stderr, "usage: %s RANK PORT STREAMS BYTES ITERS WARMUP IP0 IP1 [IP2...]\n", argv[0]);
    return 2;
  }
  int rank = atoi(argv[1]), port = atoi(argv[2]), streams = atoi(argv[3]);
  size_t total = strtoull(argv[4], NULL, 10);
  int iters = atoi(argv[5]), warmup = atoi(argv[6]), n = argc - 7, one = 1;
  if (streams < 1 || streams > kMaxStreams || rank < 0 || rank >= n || iters < 1) return 2;
  const char* me = argv[7 + rank];
  const char* next = argv[7 + (rank + 1) % n];
  size_t per = total / (size_t)streams;
  int out[kMaxStreams], in[kMaxStreams];
  int l = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in sa = addr(me, port);
  setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (bind(l, (struct sockaddr*)&sa, sizeof sa) || listen(l, 64)) { perror("listen"); return 1; }
  for (int i = 0; i < streams; ++i) {
    struct sockaddr_in to = addr(next, port), from = addr(me, 0);
    for (int tries = 0;; ++tries) {
      out[i] = socket(AF_INET, SOCK_STREAM, 0);
      bind(out[i], (struct sockaddr*)&from, sizeof from);
      if (connect(out[i], (struct sockaddr*)&to, sizeof to) == 0) break;
      close(out[i]);
      if (tries > 200) { perror("connect"); return 1; }
      usleep(50000);
    }
  }
  for (int i = 0; i < streams; ++i) in[i] = accept(l, NULL, NULL);
  close(l);
  for (int i = 0; i < streams; ++i) {
    setsockopt(out[i], IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    setsockopt(in[i], IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  }
  /* Real, written buffers (not calloc's shared zero page): one per stream
   * and direction, chunk-sized and reused, as each stream's socket copies
   * through its own. */
  char* bufs[2 * kMaxStreams];
  for (int i = 0; i < 2 * streams; ++i) {
    bufs[i] = malloc(kChunk);
    memset(bufs[i], i + 1, kChunk);
  }
  for (int i = 0; i < warmup; ++i) transfer(streams, out, in, per, bufs);
  ring_barrier(out[0], in[0]);
  double t0 = now();
  for (int i = 0; i < iters; ++i) transfer(streams, out, in, per, bufs);
  double secs = (now() - t0) / iters;
  if (rank == 0) printf("%zu %.1f %.3f\n", per * (size_t)streams, secs * 1e6, (double)per * streams / secs / 1e9);
  for (int i = 0; i < streams; ++i) {
    close(out[i]);
    close(in[i]);
  }
  for (int i = 0; i < 2 * streams; ++i) free(bufs[i]);
  return 0;
}
