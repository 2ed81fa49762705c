// RecvStream: messages of any length land in receives of any length, in
// stream order, straight into posted buffers when they cover the message and
// through staging otherwise.
#include "bench/ucx/ucx_stream.h"

#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <string>
#include <vector>

namespace railkit::bench::ucx {
namespace {

// Plays the sender's messages into the stream the way the transport does.
void deliver(RecvStream& s, const std::string& message) {
  std::uint64_t start = 0;
  auto slices = s.claim(message.size(), &start);
  if (!slices) {
    s.landedStaged(start, std::vector<char>(message.begin(), message.end()));
    return;
  }
  std::size_t off = 0;
  for (const auto& sl : *slices) {
    std::memcpy(sl.data, message.data() + off, sl.bytes);
    off += sl.bytes;
  }
  ASSERT_EQ(off, message.size());
  s.landed(*slices);
}

TEST(BenchUcxStream, OneSendIntoChunkedReceivesIsDirect) {
  RecvStream s;
  std::vector<char> a(4), b(4), c(2);
  s.post(1, a.data(), a.size());
  s.post(2, b.data(), b.size());
  s.post(3, c.data(), c.size());
  EXPECT_TRUE(s.wantsMessage());
  std::uint64_t start = 99;
  auto slices = s.claim(10, &start);
  ASSERT_TRUE(slices.has_value());
  EXPECT_EQ(start, 0u);
  ASSERT_EQ(slices->size(), 3u);  // an iov across the three buffers: no staging copy
  EXPECT_EQ((*slices)[0].data, a.data());
  EXPECT_EQ((*slices)[2].bytes, 2u);
  EXPECT_FALSE(s.wantsMessage());
  EXPECT_TRUE(s.takeDone().empty());  // nothing landed yet
  s.landed(*slices);
  EXPECT_EQ(s.takeDone(), (std::vector<RequestId>{1, 2, 3}));
}

TEST(BenchUcxStream, MessagesLongerThanPostedAreStagedAndCopiedOut) {
  RecvStream s;
  std::vector<char> a(3), b(5);
  s.post(1, a.data(), a.size());
  deliver(s, "hello");  // 5 bytes, only 3 posted: staged
  EXPECT_EQ(std::string(a.begin(), a.end()), "hel");
  EXPECT_EQ(s.takeDone(), (std::vector<RequestId>{1}));
  s.post(2, b.data(), b.size());  // gets "lo" from staging at once
  EXPECT_TRUE(s.takeDone().empty());
  deliver(s, "abc");  // covered by the rest of b: direct
  EXPECT_EQ(std::string(b.begin(), b.end()), "loabc");
  EXPECT_EQ(s.takeDone(), (std::vector<RequestId>{2}));
  EXPECT_FALSE(s.wantsMessage());
}

TEST(BenchUcxStream, ManySmallSendsIntoOneReceive) {
  RecvStream s;
  std::vector<char> a(9);
  s.post(7, a.data(), a.size());
  deliver(s, "abc");
  deliver(s, "def");
  EXPECT_TRUE(s.takeDone().empty());
  deliver(s, "ghi");
  EXPECT_EQ(std::string(a.begin(), a.end()), "abcdefghi");
  EXPECT_EQ(s.takeDone(), (std::vector<RequestId>{7}));
}

TEST(BenchUcxStream, OutOfOrderLandingCompletesEachReceiveOnce) {
  RecvStream s;
  std::vector<char> a(4), b(4);
  s.post(1, a.data(), 4);
  s.post(2, b.data(), 4);
  std::uint64_t s1 = 0, s2 = 0;
  auto first = s.claim(4, &s1);
  auto second = s.claim(4, &s2);
  ASSERT_TRUE(first && second);
  EXPECT_EQ(s2, 4u);
  s.landed(*second);  // the later message finishes first
  EXPECT_EQ(s.takeDone(), (std::vector<RequestId>{2}));
  s.landed(*first);
  EXPECT_EQ(s.takeDone(), (std::vector<RequestId>{1}));
}

TEST(BenchUcxStream, ZeroByteReceiveCompletesAtOnce) {
  RecvStream s;
  s.post(5, nullptr, 0);
  EXPECT_EQ(s.takeDone(), (std::vector<RequestId>{5}));
  EXPECT_FALSE(s.wantsMessage());
}

TEST(BenchUcxStream, RandomSplitsPreserveTheBytes) {
  // Sender and receiver cut the same 1000 bytes at unrelated places.
  std::string data(1000, '\0');
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>('a' + (i * 7) % 26);
  std::vector<std::size_t> recv_cuts{1, 250, 3, 400, 346}, send_cuts{600, 1, 1, 398};
  ASSERT_EQ(std::accumulate(recv_cuts.begin(), recv_cuts.end(), std::size_t{0}), data.size());
  ASSERT_EQ(std::accumulate(send_cuts.begin(), send_cuts.end(), std::size_t{0}), data.size());
  std::vector<char> out(data.size());
  RecvStream s;
  std::size_t posted = 0, sent = 0, r = 0, k = 0;
  // Interleave: post two receives, send one message, repeat.
  while (k < send_cuts.size() || r < recv_cuts.size()) {
    for (int j = 0; j < 2 && r < recv_cuts.size(); ++j, ++r) {
      s.post(r + 1, out.data() + posted, recv_cuts[r]);
      posted += recv_cuts[r];
    }
    if (k < send_cuts.size()) {
      deliver(s, data.substr(sent, send_cuts[k]));
      sent += send_cuts[k++];
    }
  }
  EXPECT_EQ(std::string(out.begin(), out.end()), data);
  EXPECT_EQ(s.takeDone().size() + 0, recv_cuts.size());
}

}  // namespace
}  // namespace railkit::bench::ucx
