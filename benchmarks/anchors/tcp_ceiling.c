/* The two-way TCP ceiling for benchmarks/compare.sh: two nodes each send
 * and receive BYTES over STREAMS plain TCP connections at the same time
 * (one sender and one receiver thread per stream), which is the traffic a
 * 2-rank ring needs. Prints the per-direction rate in GB/s, which for a
 * 2-rank all_reduce equals the best possible busbw.
 * Usage: tcp_ceiling server BIND_IP PORT STREAMS BYTES
 *        tcp_ceiling client SERVER_IP PORT STREAMS BYTES BIND_IP */
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

static size_t total;

static void* sender(void* arg) {
  int fd = *(int*)arg;
  size_t chunk = 1 << 20, left = total;
  char* buf = calloc(1, chunk);
  while (left > 0) {
    ssize_t n = send(fd, buf, left < chunk ? left : chunk, MSG_NOSIGNAL);
    if (n <= 0) { perror("send"); exit(1); }
    left -= (size_t)n;
  }
  free(buf);
  return NULL;
}

static void* receiver(void* arg) {
  int fd = *(int*)arg;
  size_t chunk = 1 << 20, left = total;
  char* buf = malloc(chunk);
  while (left > 0) {
    ssize_t n = recv(fd, buf, left < chunk ? left : chunk, 0);
    if (n <= 0) { perror("recv"); exit(1); }
    left -= (size_t)n;
  }
  free(buf);
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

int main(int argc, char** argv) {
  if (argc < 6) {
    fprintf(stderr, "usage: %s server|client IP PORT STREAMS BYTES [BIND_IP]\n", argv[0]);
    return 2;
  }
  int server = strcmp(argv[1], "server") == 0;
  int port = atoi(argv[3]), streams = atoi(argv[4]), one = 1;
  total = strtoull(argv[5], NULL, 10);
  int fds[64];
  if (streams < 1 || streams > 64) return 2;
  if (server) {
    int l = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = addr(argv[2], port);
    setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(l, (struct sockaddr*)&sa, sizeof sa) || listen(l, 64)) { perror("listen"); return 1; }
    for (int i = 0; i < streams; ++i) fds[i] = accept(l, NULL, NULL);
    close(l);
  } else {
    for (int i = 0; i < streams; ++i) {
      struct sockaddr_in sa = addr(argv[2], port), me = addr(argc > 6 ? argv[6] : "0.0.0.0", 0);
      for (int tries = 0;; ++tries) {
        fds[i] = socket(AF_INET, SOCK_STREAM, 0);
        bind(fds[i], (struct sockaddr*)&me, sizeof me);
        if (connect(fds[i], (struct sockaddr*)&sa, sizeof sa) == 0) break;
        close(fds[i]);
        if (tries > 100) { perror("connect"); return 1; }
        usleep(100000);
      }
    }
  }
  for (int i = 0; i < streams; ++i) setsockopt(fds[i], IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  /* A one-byte handshake per stream so both sides start together. */
  char b = 0;
  for (int i = 0; i < streams; ++i) {
    if (send(fds[i], &b, 1, 0) != 1 || recv(fds[i], &b, 1, MSG_WAITALL) != 1) { perror("sync"); return 1; }
  }
  pthread_t th[128];
  double t0 = now();
  for (int i = 0; i < streams; ++i) {
    pthread_create(&th[2 * i], NULL, sender, &fds[i]);
    pthread_create(&th[2 * i + 1], NULL, receiver, &fds[i]);
  }
  for (int i = 0; i < 2 * streams; ++i) pthread_join(th[i], NULL);
  double secs = now() - t0;
  printf("%.3f\n", (double)total * streams / secs / 1e9);
  for (int i = 0; i < streams; ++i) close(fds[i]);
  return 0;
}
