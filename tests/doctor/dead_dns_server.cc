// A nameserver that never answers, for the wait-dns netns test: binds a UDP
// socket, logs the name asked in every query it receives (so the test can
// prove lookups really reached it) and replies to none. Runs until killed.
//   dead_dns_server ADDR PORT LOG READY
// READY is created once the socket is bound. A C++ helper rather than a
// script: a fresh Debian may have no python3.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

// The first question's name of a DNS message, dotted ("" when malformed).
std::string queryName(const unsigned char* msg, size_t len) {
  std::string name;
  size_t pos = 12;  // after the header
  while (pos < len && msg[pos] != 0) {
    size_t label = msg[pos++];
    if (label > 63 || pos + label > len) return "";
    if (!name.empty()) name += '.';
    for (size_t i = 0; i < label; ++i) {
      char c = static_cast<char>(msg[pos + i]);
      name += (c > 0x20 && c < 0x7f) ? c : '?';
    }
    pos += label;
  }
  return name;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: dead_dns_server ADDR PORT LOG READY\n");
    return 2;
  }
  int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(std::atoi(argv[2])));
  if (fd < 0 || inet_pton(AF_INET, argv[1], &addr.sin_addr) != 1 ||
      bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    std::perror("dead_dns_server: bind");
    return 1;
  }
  int log = open(argv[3], O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  int ready = open(argv[4], O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (log < 0 || ready < 0) {
    std::perror("dead_dns_server: open");
    return 1;
  }
  close(ready);
  unsigned char buf[4096];
  for (long logged = 0;;) {
    ssize_t got = recv(fd, buf, sizeof buf, 0);
    if (got < 0) continue;            // EINTR; killed by the test in the end
    if (logged++ > 100000) continue;  // the log stays small; the socket keeps swallowing
    std::string line = queryName(buf, static_cast<size_t>(got)) + "\n";
    if (write(log, line.data(), line.size()) < 0) return 1;
  }
}
