// The pending-connection server on its own, with a small handler of the
// test's: each hook (greeting, framing, the three drop reasons, the watched
// fds) and each limit (drop-oldest, per-connection and overall deadlines).
// Clients connect and write before serve() runs: the listener's backlog and
// the sockets' buffers hold them, so nothing here depends on timing.
#include "bench/pending_server.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <vector>

namespace railkit::bench {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

// Greets with "hi\n"; the hello is exactly "ABCD"; serves until `want`
// hellos were taken or `stop_after_drops` lines were logged.
class FourByteHello final : public PendingHandler {
 public:
  std::optional<std::string> greet(PendingConnection& p) override {
    ssize_t sent = ::send(p.fd, "hi\n", 3, MSG_NOSIGNAL);
    if (sent != 3) return std::string("cannot greet");
    return std::nullopt;
  }
  std::size_t readLimit(const PendingConnection& p) const override { return 4 - p.bytes.size(); }
  HelloVerdict onBytes(PendingConnection& p) override {
    if (p.bytes.size() < 4) return HelloVerdict::wait();
    if (p.bytes != "ABCD") return HelloVerdict::drop("wrong hello " + p.bytes);
    taken.push_back(p.fd);
    return HelloVerdict::taken();
  }
  std::string closedWhy(const PendingConnection&) const override { return "closed early"; }
  std::string expiredWhy(PendingConnection&) override { return "no hello in time"; }
  std::string evictedWhy(PendingConnection&) override { return "evicted"; }
  std::vector<int> watched() const override { return watch; }
  void onWatched(int fd) override {
    woke.push_back(fd);
    watch.clear();
  }
  bool wantsMore() override {
    if (stop_after_drops > 0 && lines.size() >= stop_after_drops) return false;
    if (stop_when_woken && !woke.empty()) return false;
    return static_cast<int>(taken.size()) < want;
  }

  int want = 1;
  std::size_t stop_after_drops = 0;
  bool stop_when_woken = false;
  std::vector<int> taken, woke, watch;
  std::vector<std::string> lines;
};

class PendingServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto fd = listenOn("127.0.0.1", 0, &port_);
    ASSERT_TRUE(fd.has_value());
    listener_ = *fd;
  }
  void TearDown() override {
    for (int fd : clients_) closeFd(fd);
    for (int fd : handler_.taken) closeFd(fd);
    closeFd(listener_);
  }
  int client(const std::string& hello = "") {
    auto fd = connectTo("127.0.0.1", port_, "", Clock::now() + seconds(5));
    EXPECT_TRUE(fd.has_value());
    if (!fd) return -1;
    if (!hello.empty()) {
      EXPECT_EQ(::send(*fd, hello.data(), hello.size(), MSG_NOSIGNAL), ssize_t(hello.size()));
    }
    clients_.push_back(*fd);
    return *fd;
  }
  Status serve(std::size_t max_pending = 8, milliseconds hello_timeout = seconds(5),
               milliseconds overall = seconds(10)) {
    PendingServerOptions o;
    o.name = "test";
    o.hello_timeout = hello_timeout;
    o.max_pending = max_pending;
    o.notice = [this](const std::string& line) { handler_.lines.push_back(line); };
    PendingServer server(listener_, o, handler_);
    return server.serve(Clock::now() + overall);
  }
  // What the server sent `fd` before closing it ("" when it sent nothing).
  static std::string readToEnd(int fd) {
    std::string got;
    char buf[64];
    timeval tv{5, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;) got.append(buf, static_cast<std::size_t>(n));
    return got;
  }

  int port_ = 0, listener_ = -1;
  std::vector<int> clients_;
  FourByteHello handler_;
};

TEST_F(PendingServerTest, AStrangerIsDroppedAndTheRealHelloTaken) {
  int stranger = client("WXYZ");
  int real = client("ABCD");
  ASSERT_TRUE(serve().has_value());
  ASSERT_EQ(handler_.taken.size(), 1u);
  ASSERT_EQ(handler_.lines.size(), 1u);
  EXPECT_EQ(handler_.lines[0].rfind("test: dropped 127.0.0.1:", 0), 0u) << handler_.lines[0];
  EXPECT_NE(handler_.lines[0].find(": wrong hello WXYZ"), std::string::npos) << handler_.lines[0];
  EXPECT_EQ(readToEnd(stranger), "hi\n");  // greeted, then closed
  char greeting[3];
  EXPECT_EQ(::recv(real, greeting, sizeof greeting, 0), 3);
  (void)real;
}

TEST_F(PendingServerTest, TheOldestIsDroppedForANewcomer) {
  int oldest = client();
  client();
  handler_.stop_after_drops = 1;
  ASSERT_TRUE(serve(1).has_value());
  ASSERT_EQ(handler_.lines.size(), 1u);
  EXPECT_NE(handler_.lines[0].find(": evicted"), std::string::npos) << handler_.lines[0];
  EXPECT_EQ(readToEnd(oldest), "hi\n");
}

TEST_F(PendingServerTest, ASilentClientGoesAtItsOwnDeadline) {
  client("AB");  // half a hello, then nothing
  handler_.stop_after_drops = 1;
  auto start = Clock::now();
  ASSERT_TRUE(serve(8, milliseconds(50)).has_value());
  EXPECT_GE(Clock::now() - start, milliseconds(50));
  ASSERT_EQ(handler_.lines.size(), 1u);
  EXPECT_NE(handler_.lines[0].find(": no hello in time"), std::string::npos) << handler_.lines[0];
}

TEST_F(PendingServerTest, APeerThatClosesEarlyIsNamed) {
  int quitter = client("A");
  ::shutdown(quitter, SHUT_WR);
  handler_.stop_after_drops = 1;
  ASSERT_TRUE(serve().has_value());
  ASSERT_EQ(handler_.lines.size(), 1u);
  EXPECT_NE(handler_.lines[0].find(": closed early"), std::string::npos) << handler_.lines[0];
}

TEST_F(PendingServerTest, TheOverallDeadlineIsATimeout) {
  auto served = serve(8, seconds(5), milliseconds(100));
  ASSERT_FALSE(served.has_value());
  EXPECT_EQ(served.error().code, ErrorCode::kTimeout);
}

TEST_F(PendingServerTest, AWatchedFdThatHangsUpWakesTheHandler) {
  int pair[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair), 0);
  handler_.watch = {pair[0]};
  handler_.stop_when_woken = true;
  ::close(pair[1]);
  ASSERT_TRUE(serve().has_value());
  EXPECT_EQ(handler_.woke, std::vector<int>{pair[0]});
  ::close(pair[0]);
}

}  // namespace
}  // namespace railkit::bench
