// The tcp transport in one process: ranks are threads on 127.0.0.1 with the
// real env bootstrap. Covers striping over several connections (a sender's
// one large message received in odd-sized pieces), the stall deadline, a
// lost peer, and what the bootstrap and transport errors name.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <functional>
#include <numeric>
#include <set>
#include <sstream>
#include <thread>

#include "bench/bootstrap.h"
#include "bench/data_accept.h"
#include "bench/harness.h"
#include "bench/socket_util.h"
#include "bench/tcp/streams.h"
#include "bench/tcp/transport.h"
#include "support/event.h"

namespace railkit::bench {
namespace {

std::atomic<int> next_port{0};

int freshPort() {
  // Spread over a range so parallel test binaries rarely collide, and below
  // Linux's ephemeral ports (32768 up): the data planes' listeners and every
  // outgoing connection take those, and one of them once held the port a
  // later test wanted for its rendezvous.
  return 20000 + static_cast<int>((::getpid() * 7 + next_port.fetch_add(1)) % 12000);
}

BootstrapOptions bootOptions(int rank, int size, int port, std::chrono::milliseconds timeout) {
  BootstrapOptions b;
  b.job_id = "tcp-test";
  b.control_address = "127.0.0.1";
  b.master_addr = "127.0.0.1";
  b.master_port = port;
  b.rank = rank;
  b.size = size;
  b.timeout = timeout;
  b.kind = "local";
  return b;
}

TransportOptions transportOptions(int conns, std::chrono::milliseconds stall) {
  TransportOptions t;
  t.data_interface = "lo";
  t.data_address = "127.0.0.1";
  t.connections_per_peer = conns;
  t.stall_timeout = stall;
  t.hostname = "testhost";
  return t;
}

// Runs body(rank, transport, bootstrap) on `size` threads with connected transports.
void runRanks(int size, int conns, std::chrono::milliseconds stall,
              const std::function<void(int, Transport&, Bootstrap&)>& body) {
  int port = freshPort();
  std::vector<std::thread> threads;
  for (int r = 0; r < size; ++r) {
    threads.emplace_back([=, &body] {
      auto boot = makeTcpBootstrap(bootOptions(r, size, port, std::chrono::seconds(20)));
      ASSERT_TRUE(boot.has_value());
      auto t = makeTcpTransport(**boot, transportOptions(conns, stall));
      ASSERT_TRUE(t.has_value()) << t.error().message;
      body(r, **t, **boot);
    });
  }
  for (auto& t : threads) t.join();
}
void runRanks(int size, int conns, std::chrono::milliseconds stall,
              const std::function<void(int, Transport&)>& body) {
  runRanks(size, conns, stall, [&](int r, Transport& t, Bootstrap&) { body(r, t); });
}

TEST(BenchTcpTransport, StripedMessageArrivesWholeInAnyPieces) {
  for (int conns : {1, 3, 4}) {
    runRanks(2, conns, std::chrono::seconds(20), [&](int rank, Transport& t) {
      constexpr std::size_t kBytes = (3 << 20) + 12345;
      std::vector<unsigned char> buf(kBytes);
      if (rank == 0) {
        for (std::size_t i = 0; i < kBytes; ++i) buf[i] = static_cast<unsigned char>(i * 31 + i / 977);
        auto id = t.postSend(1, buf.data(), kBytes);
        ASSERT_TRUE(id.has_value());
        // A second, small message behind it must come out after it.
        unsigned char tail[3] = {7, 8, 9};
        auto id2 = t.postSend(1, tail, sizeof tail);
        ASSERT_TRUE(id2.has_value());
        ASSERT_TRUE(t.waitAll({*id, *id2}).has_value());
      } else {
        // Receive the same bytes in odd pieces that straddle stripe boundaries.
        std::vector<RequestId> ids;
        std::size_t piece = 100003, off = 0;
        while (off < kBytes) {
          std::size_t n = std::min(piece, kBytes - off);
          auto id = t.postRecv(0, buf.data() + off, n);
          ASSERT_TRUE(id.has_value());
          ids.push_back(*id);
          off += n;
          piece = piece * 3 / 2;
        }
        unsigned char tail[3] = {};
        auto id2 = t.postRecv(0, tail, sizeof tail);
        ASSERT_TRUE(id2.has_value());
        ids.push_back(*id2);
        for (RequestId id : ids) ASSERT_TRUE(t.wait(id).has_value());
        std::size_t bad = 0;
        for (std::size_t i = 0; i < kBytes; ++i)
          bad += buf[i] != static_cast<unsigned char>(i * 31 + i / 977);
        EXPECT_EQ(bad, 0u) << "connections " << conns;
        EXPECT_EQ(tail[0], 7);
        EXPECT_EQ(tail[2], 9);
      }
      ASSERT_TRUE(t.barrier().has_value());
    });
  }
}

TEST(BenchTcpTransport, MessagesToItselfAreCopied) {
  for (int size : {1, 2}) {
    runRanks(size, 2, std::chrono::seconds(20), [&](int rank, Transport& t) {
      std::vector<int> out(100000), in(100000, -1);
      std::iota(out.begin(), out.end(), rank * 1000);
      // Receive posted before and after the matching send, in pieces.
      auto r1 = t.postRecv(rank, in.data(), 1000 * sizeof(int));
      auto s = t.postSend(rank, out.data(), out.size() * sizeof(int));
      auto r2 = t.postRecv(rank, in.data() + 1000, (in.size() - 1000) * sizeof(int));
      ASSERT_TRUE(r1 && s && r2);
      ASSERT_TRUE(t.waitAll({*r1, *s, *r2}).has_value());
      EXPECT_EQ(in, out);
      ASSERT_TRUE(sendRecv(t, rank, out.data(), 4, rank, in.data(), 4).has_value());
      if (size > 1) {
        ASSERT_TRUE(t.barrier().has_value());
      }
      // A receive from itself that no send matches is an error, not a hang;
      // like any failed wait it ends the transport.
      char c = 0;
      auto lone = t.postRecv(rank, &c, 1);
      ASSERT_TRUE(lone.has_value());
      auto st = t.wait(*lone);
      ASSERT_FALSE(st.has_value());
      EXPECT_EQ(st.error().code, ErrorCode::kInternal);
      EXPECT_FALSE(t.postSend(rank, &c, 1).has_value());
    });
  }
}

TEST(BenchTcpTransport, StallTimesOutNamingThePeer) {
  testing::Event timed_out;
  runRanks(2, 2, std::chrono::milliseconds(500), [&](int rank, Transport& t) {
    if (rank == 0) {
      // Rank 0 keeps its transport alive until rank 1's wait is over: a
      // closed transport would make it a lost peer, not a stall. The stall
      // takes 500 ms; 5 s is ten times that.
      EXPECT_TRUE(timed_out.waitFor(std::chrono::seconds(5))) << "rank 1's wait did not end within 5 s";
      return;
    }
    {
      char c = 0;
      auto id = t.postRecv(0, &c, 1);  // rank 0 never sends
      ASSERT_TRUE(id.has_value());
      auto start = std::chrono::steady_clock::now();
      auto s = t.wait(*id);
      auto took = std::chrono::steady_clock::now() - start;
      timed_out.set();
      ASSERT_FALSE(s.has_value());
      EXPECT_EQ(s.error().code, ErrorCode::kTimeout);
      EXPECT_NE(s.error().message.find("rank 0 (host testhost, interface lo"), std::string::npos)
          << s.error().message;
      EXPECT_GE(took, std::chrono::milliseconds(450));
      EXPECT_LT(took, std::chrono::seconds(5));
    }
  });
}

// Small receives posted before their bytes arrive stay with the caller's
// thread (parked); they must still keep FIFO order with later receives and
// mix with receives the I/O threads move.
TEST(BenchTcpTransport, EarlySmallReceivesKeepOrderAndMixWithLargeOnes) {
  // Rank 0 tells when its receives are posted; only then do the others send,
  // so those receives are posted before their bytes arrive. Posting takes
  // microseconds: 2 s is far more than ten times that on a loaded machine.
  testing::Event first_posted, last_posted;
  constexpr auto kPosted = std::chrono::seconds(2);
  runRanks(3, 2, std::chrono::seconds(20), [&](int rank, Transport& t) {
    constexpr std::size_t kLarge = (1 << 20) + 7;
    if (rank == 0) {
      int a = 0, b = 0, c = 0;
      std::vector<char> large(kLarge);
      auto ia = t.postRecv(1, &a, sizeof a);  // nothing sent yet: parked
      auto il = t.postRecv(2, large.data(), large.size());
      first_posted.set();
      ASSERT_TRUE(ia && il);
      ASSERT_TRUE(t.waitAll({*il, *ia}).has_value());
      EXPECT_EQ(a, 11);
      std::size_t bad = 0;
      for (std::size_t i = 0; i < kLarge; ++i) bad += large[i] != static_cast<char>(i % 251);
      EXPECT_EQ(bad, 0u);
      auto ib = t.postRecv(1, &b, sizeof b);
      auto ic = t.postRecv(1, &c, sizeof c);  // hands b to its thread first
      ASSERT_TRUE(ib && ic);
      ASSERT_TRUE(t.wait(*ic).has_value());
      ASSERT_TRUE(t.wait(*ib).has_value());
      EXPECT_EQ(b, 22);
      EXPECT_EQ(c, 33);
      auto id = t.postRecv(1, &a, sizeof a);  // parked, waited alone
      last_posted.set();
      ASSERT_TRUE(id.has_value());
      ASSERT_TRUE(t.wait(*id).has_value());
      EXPECT_EQ(a, 44);
    } else {
      ASSERT_TRUE(first_posted.waitFor(kPosted)) << "rank 0 did not post its first receives";
      if (rank == 1) {
        int v[4] = {11, 22, 33, 44};
        for (int i = 0; i < 4; ++i) {
          if (i == 3) {
            ASSERT_TRUE(last_posted.waitFor(kPosted)) << "rank 0 did not post its last receive";
          }
          auto id = t.postSend(0, &v[i], sizeof v[i]);
          ASSERT_TRUE(id.has_value());
          ASSERT_TRUE(t.wait(*id).has_value());
        }
      } else {
        std::vector<char> large(kLarge);
        for (std::size_t i = 0; i < kLarge; ++i) large[i] = static_cast<char>(i % 251);
        auto id = t.postSend(0, large.data(), large.size());
        ASSERT_TRUE(id.has_value());
        ASSERT_TRUE(t.wait(*id).has_value());
      }
    }
    ASSERT_TRUE(t.barrier().has_value());
  });
}

// Thousands of small messages queue up behind each other; the I/O threads
// move many per syscall, and the receiver cuts the stream at other offsets.
TEST(BenchTcpTransport, ManySmallMessagesArriveInOrder) {
  runRanks(2, 2, std::chrono::seconds(20), [&](int rank, Transport& t) {
    constexpr std::size_t kTotal = 200000;
    std::vector<unsigned char> buf(kTotal);
    std::vector<RequestId> ids;
    std::size_t off = 0, k = 0;
    if (rank == 0) {
      for (std::size_t i = 0; i < kTotal; ++i) buf[i] = static_cast<unsigned char>(i * 7 + i / 251);
    }
    while (off < kTotal) {
      // Sender: sizes 1..37; receiver: 1..53, so boundaries rarely line up.
      std::size_t n = std::min(kTotal - off, 1 + (k++ * 13) % (rank == 0 ? 37 : 53));
      auto id = rank == 0 ? t.postSend(1, buf.data() + off, n) : t.postRecv(0, buf.data() + off, n);
      ASSERT_TRUE(id.has_value());
      ids.push_back(*id);
      off += n;
    }
    ASSERT_TRUE(t.waitAll(ids).has_value());
    if (rank == 1) {
      std::size_t bad = 0;
      for (std::size_t i = 0; i < kTotal; ++i) bad += buf[i] != static_cast<unsigned char>(i * 7 + i / 251);
      EXPECT_EQ(bad, 0u);
    }
    ASSERT_TRUE(t.barrier().has_value());
  });
}

// Every collective, in and out of place, with chunks small enough that each
// pipeline wraps its slots many times and sizes that do not divide evenly:
// every element is checked. (The e2e tests run the CLI with the default 1 MiB
// chunk, where few calls have more chunks than slots.)
TEST(BenchTcpTransport, EveryCollectiveCorrectWithSmallChunks) {
  for (int n : {2, 3, 4}) {
    runRanks(n, 2, std::chrono::seconds(20), [&](int rank, Transport& t, Bootstrap& boot) {
      for (const Collective& coll : collectives()) {
        for (auto [type, op] :
             {std::pair{DataType::kFloat, ReduceOp::kSum}, std::pair{DataType::kInt32, ReduceOp::kMax}}) {
          SweepOptions o;
          o.sizes = {4, 4 * 4099, 4 * 50021};
          o.iters = 1;
          o.warmup = 1;
          o.type = type;
          o.op = op;
          o.root = n - 1;
          o.chunk_bytes = 1000;
          auto r = runSweep(coll, t, boot, o, [](const Row&) {});
          ASSERT_TRUE(r.has_value()) << coll.name << ": " << r.error().message;
          EXPECT_EQ(r->wrong, 0u) << coll.name << " on " << n << " ranks, rank " << rank;
        }
      }
    });
  }
}

// A large receive is moved by an I/O thread, a small one by the caller
// (parked): either way a peer that closes its sockets is lost, by name.
TEST(BenchTcpTransport, ClosedPeerIsLost) {
  for (std::size_t bytes : {std::size_t{1} << 20, std::size_t{4}}) {
    int port = freshPort();
    std::thread peer([port] {
      auto boot = makeTcpBootstrap(bootOptions(1, 2, port, std::chrono::seconds(20)));
      ASSERT_TRUE(boot.has_value());
      auto t = makeTcpTransport(**boot, transportOptions(3, std::chrono::seconds(20)));
      ASSERT_TRUE(t.has_value());
      // One byte opens the streams (they open on first use); then it leaves
      // at once and its sockets close.
      char c = 'h';
      auto id = (*t)->postSend(0, &c, 1);
      ASSERT_TRUE(id.has_value());
      ASSERT_TRUE((*t)->wait(*id).has_value());
    });
    auto boot = makeTcpBootstrap(bootOptions(0, 2, port, std::chrono::seconds(20)));
    ASSERT_TRUE(boot.has_value());
    auto t = makeTcpTransport(**boot, transportOptions(3, std::chrono::seconds(20)));
    ASSERT_TRUE(t.has_value());
    peer.join();
    char hello = 0;
    auto first = (*t)->postRecv(1, &hello, 1);
    ASSERT_TRUE(first.has_value());
    ASSERT_TRUE((*t)->wait(*first).has_value());
    EXPECT_EQ(hello, 'h');
    std::vector<char> buf(bytes);
    // A small receive may find the closed socket already when it is posted.
    auto id = (*t)->postRecv(1, buf.data(), buf.size());
    Status s = id ? (*t)->wait(*id) : Status(tl::unexpected(id.error()));
    ASSERT_FALSE(s.has_value());
    EXPECT_EQ(s.error().code, ErrorCode::kPeerLost) << bytes << " bytes";
    EXPECT_NE(s.error().message.find("rank 1 (host testhost, interface lo"), std::string::npos)
        << s.error().message;
  }
}

// A failed wait ends the transport (transport.h): a ring returns on a lost
// peer and frees or reuses its buffers while a large send to a live peer is
// still queued. No byte of that send may move afterwards: rank 0 overwrites
// its buffer once its wait has failed, and rank 1, reading only then, must
// never see the new bytes (under ASan, reading the buffer once freed also
// stops the test).
TEST(BenchTcpTransport, FailedWaitStopsOtherPostedOperations) {
  constexpr std::size_t kBytes = std::size_t{128} << 20;  // far more than loopback socket buffers hold
  // Set by rank 0 once its wait has failed and its buffer holds 'y': rank 1
  // starts reading then. Rank 0 fails as soon as rank 2's sockets close
  // (milliseconds); 10 s leaves room for a sanitizer build on a loaded machine.
  testing::Event overwritten;
  runRanks(3, 2, std::chrono::seconds(3),
           [&](int rank, Transport& t) {
             char one = 'o';
             if (rank == 2) {  // opens its streams to rank 0, then leaves: its sockets close
               auto id = t.postSend(0, &one, 1);
               ASSERT_TRUE(id.has_value());
               ASSERT_TRUE(t.wait(*id).has_value());
               return;
             }
             if (rank == 0) {
               {
                 // Rank 1's streams first (they open on first use), so the
                 // large send is in flight when the wait on rank 2 fails.
                 auto hello = t.postRecv(1, &one, 1);
                 ASSERT_TRUE(hello.has_value());
                 ASSERT_TRUE(t.wait(*hello).has_value());
                 std::vector<char> send(kBytes, 'x');
                 char c[2] = {0, 0};
                 auto sent = t.postSend(1, send.data(), send.size());
                 ASSERT_TRUE(sent.has_value());
                 auto recv = t.postRecv(2, c, 2);  // rank 2 sends 1 byte and leaves
                 Status s = recv ? t.wait(*recv) : Status(tl::unexpected(recv.error()));
                 ASSERT_FALSE(s.has_value());
                 EXPECT_EQ(s.error().code, ErrorCode::kPeerLost) << s.error().message;
                 std::fill(send.begin(), send.end(), 'y');  // the memory is the caller's again
                 // Later operations report the same loss.
                 auto again = t.postSend(1, c, 1);
                 Status s2 = again ? t.wait(*again) : Status(tl::unexpected(again.error()));
                 ASSERT_FALSE(s2.has_value());
                 EXPECT_EQ(s2.error().message, s.error().message);
                 overwritten.set();
                 // Not an ordering: the windows in which a stray send would
                 // show, rank 1 reading, first with the buffer held ('y'
                 // would arrive), then with it freed (ASan would stop it).
                 std::this_thread::sleep_for(std::chrono::milliseconds(1000));
               }
               std::this_thread::sleep_for(std::chrono::milliseconds(500));
               return;
             }
             auto hello = t.postSend(0, &one, 1);
             ASSERT_TRUE(hello.has_value());
             ASSERT_TRUE(t.wait(*hello).has_value());
             ASSERT_TRUE(overwritten.waitFor(std::chrono::seconds(10)))
                 << "rank 0's wait on rank 2 did not fail";
             std::vector<char> recv(kBytes, 0);
             auto id = t.postRecv(0, recv.data(), recv.size());
             ASSERT_TRUE(id.has_value());
             Status s = t.wait(*id);
             EXPECT_FALSE(s.has_value())
                 << "rank 1 received the whole message: rank 0 kept sending after its wait failed";
             EXPECT_EQ(std::count(recv.begin(), recv.end(), 'y'), 0)
                 << "rank 0 sent bytes written after its wait failed";
           });
}

// ESTABLISHED TCP sockets in this network namespace with a local or remote
// port among `ports` (/proc/net/tcp: "local rem_address st" in hex). On
// loopback both ends of a connection are listed.
int establishedOn(const std::set<int>& ports) {
  std::ifstream in("/proc/net/tcp");
  std::string line;
  std::getline(in, line);  // header
  int n = 0;
  while (std::getline(in, line)) {
    std::istringstream f(line);
    std::string slot, local, remote, state;
    f >> slot >> local >> remote >> state;
    auto port = [](const std::string& addr) {
      return std::stoi(addr.substr(addr.find(':') + 1), nullptr, 16);
    };
    if (state == "01" && (ports.count(port(local)) || ports.count(port(remote)))) ++n;
  }
  return n;
}

int portOf(const PeerInfo& p) {
  return std::stoi(p.address.substr(p.address.rfind(':') + 1));
}

// Streams open on first use (tcp/streams.h): four ranks of which only 0 and
// 1 talk hold the K streams of that one pair, not the 6 x K of a mesh; and a
// collective over all four then opens what it needs and is correct.
TEST(BenchTcpTransport, StreamsOpenOnlyToThePeersUsed) {
  constexpr int kConns = 2;
  std::atomic<int> counted{-1};
  std::atomic<int> after_collective{-1};
  runRanks(4, kConns, std::chrono::seconds(20), [&](int rank, Transport& t, Bootstrap& boot) {
    std::set<int> ports;
    for (int r = 0; r < 4; ++r) ports.insert(portOf(t.peer(r)));
    if (rank < 2) {
      int mine = 10 + rank, theirs = 0;
      auto s = sendRecv(t, 1 - rank, &mine, sizeof mine, 1 - rank, &theirs, sizeof theirs);
      ASSERT_TRUE(s.has_value()) << s.error().message;
      EXPECT_EQ(theirs, 11 - rank);
    }
    ASSERT_TRUE(boot.barrier().has_value());
    if (rank == 0) counted = establishedOn(ports);
    ASSERT_TRUE(boot.barrier().has_value());
    ASSERT_TRUE(t.barrier().has_value());  // dissemination: every rank talks to r+1 and r+2
    ASSERT_TRUE(boot.barrier().has_value());
    if (rank == 0) after_collective = establishedOn(ports);
    ASSERT_TRUE(boot.barrier().has_value());
  });
  EXPECT_EQ(counted.load(), 2 * kConns);  // both ends of the one pair's streams
  EXPECT_GT(after_collective.load(), counted.load());
  EXPECT_LE(after_collective.load(), 2 * 6 * kConns);
}

// Transport::connect opens a pair's streams before anything is posted (pairs
// connects each round's partner ahead): from the higher rank it dials, from
// the lower one it is a no-op (its acceptor takes the streams).
TEST(BenchTcpTransport, ConnectOpensTheStreamsAheadFromTheHigherRank) {
  constexpr int kConns = 3;
  std::atomic<int> after_lower{-1}, after_higher{-1};
  runRanks(3, kConns, std::chrono::seconds(20), [&](int rank, Transport& t, Bootstrap& boot) {
    std::set<int> ports;
    for (int r = 0; r < 3; ++r) ports.insert(portOf(t.peer(r)));
    if (rank == 0) {
      ASSERT_TRUE(t.connect(2).has_value());
    }
    ASSERT_TRUE(boot.barrier().has_value());
    if (rank == 0) after_lower = establishedOn(ports);
    ASSERT_TRUE(boot.barrier().has_value());
    if (rank == 2) {
      ASSERT_TRUE(t.connect(0).has_value());
    }
    ASSERT_TRUE(t.connect(rank).has_value());  // itself: nothing to open
    ASSERT_TRUE(boot.barrier().has_value());
    if (rank == 0) after_higher = establishedOn(ports);
    ASSERT_TRUE(boot.barrier().has_value());
    if (rank != 1) {  // and the streams carry the pair's bytes
      int mine = rank, theirs = -1;
      ASSERT_TRUE(sendRecv(t, 2 - rank, &mine, sizeof mine, 2 - rank, &theirs, sizeof theirs).has_value());
      EXPECT_EQ(theirs, 2 - rank);
    }
  });
  EXPECT_EQ(after_lower.load(), 0);
  EXPECT_EQ(after_higher.load(), 2 * kConns);
}

// The pieces of a lazy stream set-up on their own: rank 1 dials rank 0,
// whose acceptor takes the streams.
struct TwoRankDirectories {
  tcp::Directory lower, higher;  // rank 0's and rank 1's views
  TwoRankDirectories(int port, const std::string& cookie) {
    for (auto* d : {&lower, &higher}) {
      for (int r = 0; r < 2; ++r) {
        d->peers.push_back(PeerInfo{r, "testhost", "lo", "127.0.0.1:" + std::to_string(r == 0 ? port : 1)});
        d->endpoints.push_back(
            tcp::Endpoint{"127.0.0.1", r == 0 ? port : 1, std::string(kDataCookieBytes, 'c')});
      }
    }
    lower.cookie = cookie;
  }
};

int unusedPort() {
  int port = 0;
  auto fd = listenOn("127.0.0.1", 0, &port);
  closeFd(*fd);
  return port;
}

TEST(BenchTcpTransport, ARefusedStreamIsDialledAgainUntilThePeerListens) {
  int port = unusedPort();
  TwoRankDirectories dirs(port, std::string(kDataCookieBytes, 'c'));
  auto options = transportOptions(2, std::chrono::seconds(10));
  std::vector<int> taken;
  testing::Event accepted;  // the acceptor took the dialler's streams
  std::thread lower([&] {
    // Not an ordering: a peer slow to listen is what is tested, and the
    // dialler is refused meanwhile.
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
    int bound = 0;
    auto listener = listenOn("127.0.0.1", port, &bound);
    ASSERT_TRUE(listener.has_value()) << listener.error().message;
    dirs.lower.listener = *listener;
    tcp::StreamAcceptor acceptor(dirs.lower, 0, 2, options, [&](int r, const std::vector<int>& fds) {
      EXPECT_EQ(r, 1);
      taken = fds;
      accepted.set();
    });
    ASSERT_TRUE(acceptor.start().has_value());
    EXPECT_TRUE(accepted.waitFor(std::chrono::seconds(10))) << "no streams accepted within 10 s";
    acceptor.stop();
    closeFd(*listener);
  });
  auto start = Clock::now();
  auto fds = tcp::dialPeer(dirs.higher, 1, 0, 2, options, Clock::now() + std::chrono::seconds(10));
  lower.join();
  ASSERT_TRUE(fds.has_value()) << fds.error().message;
  EXPECT_EQ(fds->size(), 2u);
  EXPECT_GE(Clock::now() - start, std::chrono::milliseconds(350));
  ASSERT_EQ(taken.size(), 2u);
  // Stream k of the dialler is stream k of the acceptor.
  char c = 'k';
  ASSERT_EQ(::send((*fds)[1], &c, 1, 0), 1);
  char got = 0;
  ASSERT_EQ(::recv(taken[1], &got, 1, 0), 1);
  EXPECT_EQ(got, 'k');
  for (int fd : *fds) closeFd(fd);
  for (int fd : taken) closeFd(fd);
}

TEST(BenchTcpTransport, APeerThatNeverListensIsNamedAtTheStallTimeout) {
  int port = unusedPort();
  TwoRankDirectories dirs(port, std::string(kDataCookieBytes, 'c'));
  auto options = transportOptions(1, std::chrono::milliseconds(600));
  auto start = Clock::now();
  auto fds = tcp::dialPeer(dirs.higher, 1, 0, 1, options, Clock::now() + options.stall_timeout);
  auto took = Clock::now() - start;
  ASSERT_FALSE(fds.has_value());
  EXPECT_EQ(fds.error().code, ErrorCode::kPeerLost);
  EXPECT_NE(fds.error().message.find("cannot connect to rank 0 (host testhost, interface lo, 127.0.0.1:" +
                                     std::to_string(port)),
            std::string::npos)
      << fds.error().message;
  EXPECT_NE(fds.error().message.find("within 600 ms (--stall-timeout)"), std::string::npos)
      << fds.error().message;
  EXPECT_NE(fds.error().message.find("Connection refused"), std::string::npos) << fds.error().message;
  EXPECT_GE(took,
            std::chrono::milliseconds(590));  // retried until the deadline, not given up at the first refusal
  EXPECT_LT(took, std::chrono::seconds(3));
}

// A stream the lower rank dropped before acknowledging it (a late hello,
// too many waiting) is dialled again, not counted as up.
TEST(BenchTcpTransport, AStreamClosedBeforeItsAcknowledgementIsDialledAgain) {
  int port = 0;
  auto listener = listenOn("127.0.0.1", 0, &port);
  ASSERT_TRUE(listener.has_value());
  TwoRankDirectories dirs(port, std::string(kDataCookieBytes, 'c'));
  dirs.lower.listener = *listener;
  auto options = transportOptions(1, std::chrono::seconds(10));
  testing::Event accepted;  // the acceptor took the dialler's streams
  std::thread lower([&] {
    auto first = acceptUntil(*listener, Clock::now() + std::chrono::seconds(5));
    ASSERT_TRUE(first.has_value());
    closeFd(*first);  // dropped without an acknowledgement
    tcp::StreamAcceptor acceptor(dirs.lower, 0, 1, options, [&](int, const std::vector<int>& fds) {
      for (int fd : fds) closeFd(fd);
      accepted.set();
    });
    ASSERT_TRUE(acceptor.start().has_value());
    EXPECT_TRUE(accepted.waitFor(std::chrono::seconds(10))) << "no streams accepted within 10 s";
  });
  auto fds = tcp::dialPeer(dirs.higher, 1, 0, 1, options, Clock::now() + std::chrono::seconds(10));
  lower.join();
  ASSERT_TRUE(fds.has_value()) << fds.error().message;
  for (int fd : *fds) closeFd(fd);
  closeFd(*listener);
}

TEST(BenchTcpTransport, BootstrapTimeoutNamesMissingRankAndInterface) {
  auto boot = makeTcpBootstrap(bootOptions(0, 3, freshPort(), std::chrono::milliseconds(300)));
  ASSERT_TRUE(boot.has_value());
  auto all = (*boot)->allgather("x");
  ASSERT_FALSE(all.has_value());
  EXPECT_EQ(all.error().code, ErrorCode::kTimeout);
  EXPECT_NE(all.error().message.find("rank(s) 1,2"), std::string::npos) << all.error().message;
  EXPECT_NE(all.error().message.find("interface lo"), std::string::npos) << all.error().message;

  auto lone = makeTcpBootstrap(bootOptions(1, 2, freshPort(), std::chrono::milliseconds(300)));
  ASSERT_TRUE(lone.has_value());
  auto r = (*lone)->allgather("x");
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, ErrorCode::kTimeout);
  EXPECT_NE(r.error().message.find("rank 0 (host 127.0.0.1:"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("interface lo"), std::string::npos) << r.error().message;
}

}  // namespace
}  // namespace railkit::bench
