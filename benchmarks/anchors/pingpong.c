/* Latency anchor for benchmarks/compare.sh: the plainest ping-pong a TCP
 * transport can do. One connection (TCP_NODELAY, non-blocking); each side
 * sends BYTES with send() and waits for the reply with poll() + recv().
 * WARMUP untimed round trips, then ITERS timed ones, each timed on its own.
 * The client prints: bytes, median one-way latency (round trip / 2, us),
 * mean round trip (us).
 * Usage: pingpong server BIND_IP PORT BYTES ITERS WARMUP
 *        pingpong client SERVER_IP PORT BYTES ITERS WARMUP */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void send_all(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t r = send(fd, p, n, MSG_NOSIGNAL);
    if (r > 0) { p += r; n -= (size_t)r; continue; }
    if (r < 0 && errno == EAGAIN) {
      struct pollfd pf = {fd, POLLOUT, 0};
      poll(&pf, 1, -1);
      continue;
    }
    perror("send");
    exit(1);
  }
}

static void recv_all(int fd, char* p, size_t n) {
  while (n > 0) {
    struct pollfd pf = {fd, POLLIN, 0};
    if (poll(&pf, 1, -1) < 0 && errno != EINTR) { perror("poll"); exit(1); }
    ssize_t r = recv(fd, p, n, 0);
    if (r > 0) { p += r; n -= (size_t)r; continue; }
    if (r < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    fprintf(stderr, "recv: %s\n", r == 0 ? "peer closed" : strerror(errno));
    exit(1);
  }
}

static int cmp(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

int main(int argc, char** argv) {
  if (argc < 7) {
    fprintf(stderr, "usage: %s server|client IP PORT BYTES ITERS WARMUP\n", argv[0]);
    return 2;
  }
  int server = strcmp(argv[1], "server") == 0, one = 1, fd;
  size_t bytes = strtoull(argv[4], NULL, 10);
  int iters = atoi(argv[5]), warmup = atoi(argv[6]);
  if (bytes < 1 || bytes > 1 << 20 || iters < 1) return 2;
  struct sockaddr_in sa;
  memset(&sa, 0, sizeof sa);
  sa.sin_family = AF_INET;
  sa.sin_port = htons((unsigned short)atoi(argv[3]));
  inet_pton(AF_INET, argv[2], &sa.sin_addr);
  if (server) {
    int l = socket(AF_INET, SOCK_STREAM, 0);
    setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(l, (struct sockaddr*)&sa, sizeof sa) || listen(l, 1)) { perror("listen"); return 1; }
    fd = accept(l, NULL, NULL);
    close(l);
  } else {
    for (int tries = 0;; ++tries) {
      fd = socket(AF_INET, SOCK_STREAM, 0);
      if (connect(fd, (struct sockaddr*)&sa, sizeof sa) == 0) break;
      close(fd);
      if (tries > 200) { perror("connect"); return 1; }
      usleep(50000);
    }
  }
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  char* buf = calloc(1, bytes);
  double* rtt = malloc(sizeof(double) * (size_t)iters);
  for (int i = 0; i < warmup + iters; ++i) {
    double t0 = now_us();
    if (server) {
      recv_all(fd, buf, bytes);
      send_all(fd, buf, bytes);
    } else {
      send_all(fd, buf, bytes);
      recv_all(fd, buf, bytes);
    }
    if (i >= warmup) rtt[i - warmup] = now_us() - t0;
  }
  if (!server) {
    double sum = 0;
    for (int i = 0; i < iters; ++i) sum += rtt[i];
    qsort(rtt, (size_t)iters, sizeof(double), cmp);
    printf("%zu %.2f %.2f\n", bytes, rtt[iters / 2] / 2, sum / iters);
  }
  free(rtt);
  free(buf);
  close(fd);
  return 0;
}
