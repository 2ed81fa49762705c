// The env rendezvous on 127.0.0.1 with strangers at rank 0's port: idle
// connections, spoofed hellos with the guessable default job id, with and
// without a job token. Every wait is bounded by generous timeouts; nothing
// here asserts a speed.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <sys/socket.h>

#include <atomic>
#include <future>
#include <mutex>
#include <thread>

#include "bench/bootstrap.h"
#include "bench/data_accept.h"
#include "bench/rendezvous.h"
#include "bench/socket_util.h"

namespace railkit::bench {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

struct Notices {
  std::mutex mu;
  std::vector<std::string> lines;
  void operator()(const std::string& line) {
    std::lock_guard<std::mutex> lock(mu);
    lines.push_back(line);
  }
  bool any(const std::string& needle) {
    std::lock_guard<std::mutex> lock(mu);
    for (const auto& l : lines) {
      if (l.find(needle) != std::string::npos) return true;
    }
    return false;
  }
};

class Rendezvous {
 public:
  Rendezvous(int size, std::string token, milliseconds hello_timeout = seconds(5)) {
    auto fd = listenOn("127.0.0.1", 0, &port_);
    EXPECT_TRUE(fd.has_value());
    listener_ = fd.value_or(-1);
    base_.job_id = defaultJobId("127.0.0.1", port_, size);
    base_.master_addr = "127.0.0.1";
    base_.control_address = "127.0.0.1";
    base_.master_port = port_;
    base_.size = size;
    base_.timeout = seconds(60);
    base_.job_token = std::move(token);
    base_.hello_timeout = hello_timeout;
  }
  int port() const { return port_; }
  const std::string& jobId() const { return base_.job_id; }

  // Starts rank r; its future holds the allgathered blobs or the error.
  std::future<Result<std::vector<std::string>>> start(int r, Notices* notices) {
    BootstrapOptions o = base_;
    o.rank = r;
    if (r == 0) o.inherited_listener = listener_;
    o.notice = [notices](const std::string& line) { (*notices)(line); };
    return std::async(std::launch::async, [o]() -> Result<std::vector<std::string>> {
      auto boot = makeTcpBootstrap(o);
      if (!boot) return tl::unexpected(boot.error());
      auto first = (*boot)->allgather("blob-" + std::to_string(o.rank));
      if (!first) return first;
      return (*boot)->allgather("again-" + std::to_string(o.rank));  // the relayed path works too
    });
  }

 private:
  int port_ = 0;
  int listener_ = -1;
  BootstrapOptions base_;
};

int connectRaw(int port) {
  auto fd = connectTo("127.0.0.1", port, "", Clock::now() + seconds(10));
  EXPECT_TRUE(fd.has_value());
  return fd.value_or(-1);
}

std::string readLine(int fd) {
  auto line = recvLine(fd, 1 << 16, Clock::now() + seconds(30));
  if (line) return *line;
  std::string failed = "<no line: ";
  failed += line.error().message;
  return failed;
}

void sendText(int fd, const std::string& text) {
  ASSERT_TRUE(sendAll(fd, text.data(), text.size(), Clock::now() + seconds(10)).has_value());
}

void expectCompleted(std::future<Result<std::vector<std::string>>>& f, int size) {
  ASSERT_EQ(f.wait_for(seconds(120)), std::future_status::ready);
  auto all = f.get();
  ASSERT_TRUE(all.has_value()) << all.error().message;
  ASSERT_EQ(all->size(), static_cast<std::size_t>(size));
  for (int r = 0; r < size; ++r) EXPECT_EQ((*all)[static_cast<std::size_t>(r)], "again-" + std::to_string(r));
}

// Twelve silent connections arrive before rank 1. Each may wait its full
// hello deadline (50 s here): served one at a time they would hold rank 1
// for ten minutes against a 60 s bootstrap timeout; served at once rank 1
// is in at once.
TEST(BenchRendezvousStrangers, IdleClientsDoNotDelayTheJob) {
  Notices notices;
  Rendezvous rdv(2, "", seconds(50));
  auto r0 = rdv.start(0, &notices);
  std::vector<int> idle;
  for (int i = 0; i < 12; ++i) idle.push_back(connectRaw(rdv.port()));
  // Every idle client has been greeted, so rank 0 has accepted them all.
  for (int fd : idle) EXPECT_EQ(readLine(fd).rfind("RAILKIT-RDV-NONCE ", 0), 0u);
  auto r1 = rdv.start(1, &notices);
  expectCompleted(r1, 2);
  expectCompleted(r0, 2);
  for (int fd : idle) closeFd(fd);
}

// More idle connections than rank 0 keeps pending: the oldest are dropped,
// the real rank still gets in.
TEST(BenchRendezvousStrangers, FloodDropsTheOldest) {
  Notices notices;
  Rendezvous rdv(2, "", seconds(50));
  auto r0 = rdv.start(0, &notices);
  std::vector<int> idle;
  for (int i = 0; i < 80; ++i) idle.push_back(connectRaw(rdv.port()));
  auto r1 = rdv.start(1, &notices);
  expectCompleted(r1, 2);
  expectCompleted(r0, 2);
  EXPECT_TRUE(notices.any("too many connections"));
  for (int fd : idle) closeFd(fd);
}

// With a token, a spoofer that sends a well-formed hello for rank 1 with the
// default job id (and keeps its connection open) is refused; the job completes.
TEST(BenchRendezvousStrangers, TokenRefusesASpoofedHello) {
  Notices notices;
  Rendezvous rdv(2, "the-shared-secret-of-this-job");
  auto r0 = rdv.start(0, &notices);
  int spoofer = connectRaw(rdv.port());
  auto nonce = parseRendezvousNonce(readLine(spoofer));
  ASSERT_TRUE(nonce.has_value());
  RendezvousHello fake{kRendezvousVersion, rdv.jobId(), 1, 2, "10.9.9.9 1", ""};
  sendText(spoofer, formatRendezvousHello(fake) + "\n");
  EXPECT_EQ(readLine(spoofer).rfind("RAILKIT-RDV-REFUSED no job token", 0), 0u);
  // A mac under a guessed token fares no better.
  int guesser = connectRaw(rdv.port());
  auto nonce2 = parseRendezvousNonce(readLine(guesser));
  ASSERT_TRUE(nonce2.has_value());
  fake.mac = helloMac("a-guessed-token-value", *nonce2, fake);
  sendText(guesser, formatRendezvousHello(fake) + "\n");
  EXPECT_EQ(readLine(guesser), "RAILKIT-RDV-REFUSED wrong job token");
  auto r1 = rdv.start(1, &notices);
  expectCompleted(r1, 2);
  expectCompleted(r0, 2);
  EXPECT_TRUE(notices.any("wrong job token"));
  closeFd(spoofer);
  closeFd(guesser);
}

// Without a token the spoofer's hello takes rank 1's slot while it stays
// connected; the real rank 1 is told to try again, and gets the slot once
// the spoofer closes. Three ranks, and rank 2 comes last, so the spoofer
// never completes the set (a spoofer that does is what the token is for).
TEST(BenchRendezvousStrangers, WithoutTokenASpooferThatLeavesIsNotFatal) {
  Notices notices;
  Rendezvous rdv(3, "");
  auto r0 = rdv.start(0, &notices);
  int spoofer = connectRaw(rdv.port());
  ASSERT_TRUE(parseRendezvousNonce(readLine(spoofer)).has_value());
  RendezvousHello fake{kRendezvousVersion, rdv.jobId(), 1, 3, "10.9.9.9 1", ""};
  sendText(spoofer, formatRendezvousHello(fake) + "\n");
  auto r1 = rdv.start(1, &notices);
  // Rank 1 is turned away (slot taken) before the spoofer leaves.
  for (int i = 0; i < 600 && !notices.any("slot taken"); ++i) std::this_thread::sleep_for(milliseconds(100));
  EXPECT_TRUE(notices.any("slot taken"));
  closeFd(spoofer);
  for (int i = 0; i < 600 && !notices.any("slot is free again") && !notices.any("its slot goes to"); ++i) {
    std::this_thread::sleep_for(milliseconds(100));
  }
  auto r2 = rdv.start(2, &notices);
  expectCompleted(r1, 3);
  expectCompleted(r2, 3);
  expectCompleted(r0, 3);
}

// Garbage, a foreign protocol version and a wrong job id are dropped and
// reported; the job completes.
TEST(BenchRendezvousStrangers, MalformedClientsAreDroppedAndReported) {
  Notices notices;
  Rendezvous rdv(2, "");
  auto r0 = rdv.start(0, &notices);
  for (std::string text :
       {std::string(5000, '\x01') + "\n", std::string("RAILKIT-RDV 1 job 1 2 -\n"),
        std::string("RAILKIT-RDV 2 wrongjob 1 2 - -\n"), std::string("GET / HTTP/1.0\r\n\r\n")}) {
    int fd = connectRaw(rdv.port());
    sendText(fd, text);
    closeFd(fd);
  }
  auto r1 = rdv.start(1, &notices);
  expectCompleted(r1, 2);
  expectCompleted(r0, 2);
  EXPECT_TRUE(notices.any("dropped"));
}

// The tcp data listener: silent strangers and a client without the cookie
// are dropped without delaying the real stream (each stranger could wait its
// 50 s deadline; served one at a time they would outlast the 60 s budget).
TEST(BenchDataPlaneStrangers, OnlyHellosWithTheCookieAreTaken) {
  int port = 0;
  auto listener = listenOn("127.0.0.1", 0, &port);
  ASSERT_TRUE(listener.has_value());
  const std::string cookie(kDataCookieBytes, 'c');
  std::vector<int> idle;
  for (int i = 0; i < 12; ++i) idle.push_back(connectRaw(port));
  int wrong = connectRaw(port);
  DataHello bad{kDataMagic, 1, 0, {}};
  bad.cookie.fill('x');
  ASSERT_TRUE(sendAll(wrong, &bad, sizeof bad, Clock::now() + seconds(10)).has_value());
  int real = connectRaw(port);
  DataHello good{kDataMagic, 1, 0, {}};
  good.cookie.fill('c');
  ASSERT_TRUE(sendAll(real, &good, sizeof good, Clock::now() + seconds(10)).has_value());

  Notices notices;
  int taken = -1;
  DataAcceptOptions o;
  o.cookie = cookie;
  o.expected = 1;
  o.hello_timeout = seconds(50);
  o.wanted = [](const DataHello& h) { return h.rank == 1 && h.index == 0; };
  o.take = [&taken](int fd, const DataHello&) { taken = fd; };
  o.notice = [&notices](const std::string& line) { notices(line); };
  auto s = acceptDataConnections(*listener, o, Clock::now() + seconds(60));
  ASSERT_TRUE(s.has_value()) << s.error().message;
  ASSERT_GE(taken, 0);
  EXPECT_TRUE(notices.any("not a data hello of this job"));
  // The stream taken is the real client's: a byte it sends arrives there.
  ASSERT_TRUE(sendAll(real, "!", 1, Clock::now() + seconds(10)).has_value());
  char c = 0;
  ASSERT_TRUE(recvAll(taken, &c, 1, Clock::now() + seconds(30)).has_value());
  EXPECT_EQ(c, '!');
  for (int fd : idle) closeFd(fd);
  for (int fd : {wrong, real, taken, *listener}) closeFd(fd);
}

}  // namespace
}  // namespace railkit::bench
