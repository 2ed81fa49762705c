#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "bench/collectives/collective.h"

namespace railkit::bench {
namespace {

TEST(BenchCollectives, TableCoversEveryNcclTestsOp) {
  for (const char* name :
       {"all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce", "alltoall", "sendrecv"}) {
    const Collective* c = findCollective(name);
    ASSERT_NE(c, nullptr) << name;
    EXPECT_STREQ(collectiveName(c->op), name);
  }
  EXPECT_EQ(findCollective("p2p_nope"), nullptr);
}

TEST(BenchCollectives, CountsFollowNcclTests) {
  // 10 elements over 3 ranks: gather/scatter/alltoall round down to 9.
  Counts g = findCollective("all_gather")->counts(10, 3, 2);
  EXPECT_EQ(g.send, 3u);
  EXPECT_EQ(g.recv, 9u);
  EXPECT_EQ(g.in_place_send, 6u);
  Counts s = findCollective("reduce_scatter")->counts(10, 3, 1);
  EXPECT_EQ(s.send, 9u);
  EXPECT_EQ(s.recv, 3u);
  EXPECT_EQ(s.in_place_recv, 3u);
  Counts a = findCollective("all_reduce")->counts(10, 3, 0);
  EXPECT_EQ(a.send, 10u);  // all_reduce keeps odd counts: segments are uneven
  EXPECT_EQ(findCollective("alltoall")->counts(10, 3, 0).recv, 9u);
}

TEST(BenchCollectives, CheckCountsEveryWrongElement) {
  const Collective* c = findCollective("all_reduce");
  std::vector<float> out(101);
  for (std::size_t i = 0; i < out.size(); ++i)
    out[i] = static_cast<float>(reducedValue(ReduceOp::kSum, 3, i, 9));
  CollectiveArgs args;
  args.type = DataType::kFloat;
  args.recv = out.data();
  args.recv_count = out.size();
  EXPECT_EQ(c->check(args, 0, 3, 9), 0u);
  out[7] += 1;
  out[100] = -1;
  EXPECT_EQ(c->check(args, 0, 3, 9), 2u);
  EXPECT_GT(c->check(args, 0, 3, 10), 50u);  // another seed: most elements differ
}

TEST(BenchDatatypes, ReduceAndSeededValuesAreExact) {
  for (auto op : {ReduceOp::kSum, ReduceOp::kProd, ReduceOp::kMin, ReduceOp::kMax}) {
    for (auto type :
         {DataType::kInt8, DataType::kUint8, DataType::kInt32, DataType::kUint64, DataType::kDouble}) {
      std::size_t n = 33, es = dataTypeSize(type);
      std::vector<char> acc(n * es), other(n * es);
      fillSeeded(type, op, acc.data(), n, 0, 0, 5);
      for (int r = 1; r < 4; ++r) {
        fillSeeded(type, op, other.data(), n, r, 0, 5);
        reduceInto(type, op, acc.data(), other.data(), n);
      }
      EXPECT_EQ(countWrong(type, acc.data(), n, [&](std::size_t i) { return reducedValue(op, 4, i, 5); }), 0u)
          << dataTypeName(type) << " " << reduceOpName(op);
    }
  }
}

TEST(BenchDatatypes, Names) {
  EXPECT_EQ(*dataTypeFromName("uint32"), DataType::kUint32);
  EXPECT_EQ(*reduceOpFromName("max"), ReduceOp::kMax);
  EXPECT_FALSE(dataTypeFromName("bfloat17").has_value());
  EXPECT_FALSE(reduceOpFromName("avgx").has_value());
}

}  // namespace
}  // namespace railkit::bench
