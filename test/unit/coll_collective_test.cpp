// The collective table: names, element counts and bandwidth factors as nccl-tests
// computes them (its *GetCollByteCount and *GetBw).
#include "coll/collective.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

namespace fabscope {
namespace {

const std::vector<Collective> kAll = {Collective::kAllReduce, Collective::kAllGather, Collective::kReduceScatter,
                                      Collective::kAllToAll,  Collective::kBroadcast, Collective::kReduce,
                                      Collective::kGather,    Collective::kScatter,   Collective::kSendRecv};

// nccl-tests' per-rank chunk: count / n rounded down to a whole number of 16-byte units.
size_t chunk(size_t count, size_t elt, int n) {
  const size_t per16 = 16 / elt;
  return (count / static_cast<size_t>(n)) / per16 * per16;
}

ElementCounts reference_counts(Collective c, size_t count, size_t elt, int nranks) {
  const size_t n = static_cast<size_t>(nranks);
  const size_t base = chunk(count, elt, nranks);
  ElementCounts e;
  switch (c) {
    case Collective::kAllReduce:
    case Collective::kBroadcast:
    case Collective::kReduce:
    case Collective::kSendRecv:
      e.send = count;
      e.recv = count;
      e.param = count;
      break;
    case Collective::kAllGather:
    case Collective::kGather:
      e.send = base;
      e.recv = base * n;
      e.param = base;
      e.send_inplace_offset = base;
      break;
    case Collective::kReduceScatter:
    case Collective::kScatter:
      e.send = base * n;
      e.recv = base;
      e.param = base;
      e.recv_inplace_offset = base;
      break;
    case Collective::kAllToAll:
      e.send = n * base;
      e.recv = n * base;
      e.param = base;
      break;
  }
  return e;
}

void expect_counts(const ElementCounts& got, const ElementCounts& want, const std::string& where) {
  EXPECT_EQ(got.send, want.send) << where;
  EXPECT_EQ(got.recv, want.recv) << where;
  EXPECT_EQ(got.param, want.param) << where;
  EXPECT_EQ(got.send_inplace_offset, want.send_inplace_offset) << where;
  EXPECT_EQ(got.recv_inplace_offset, want.recv_inplace_offset) << where;
}

TEST(CollectiveTable, NamesAndOrder) {
  const auto& table = all_collectives();
  ASSERT_EQ(table.size(), kAll.size());
  const std::vector<std::string> names = {"allreduce", "allgather", "reducescatter", "alltoall", "broadcast",
                                          "reduce",    "gather",    "scatter",       "sendrecv"};
  const std::vector<std::string> nccl = {"all_reduce_perf", "all_gather_perf", "reduce_scatter_perf",
                                         "alltoall_perf",   "broadcast_perf",  "reduce_perf",
                                         "gather_perf",     "scatter_perf",    "sendrecv_perf"};
  for (size_t i = 0; i < kAll.size(); ++i) {
    EXPECT_EQ(table[i].id, kAll[i]);
    EXPECT_EQ(info(kAll[i]).id, kAll[i]);
    EXPECT_EQ(name(kAll[i]), names[i]);
    EXPECT_EQ(table[i].nccl_tests_name, nccl[i]);
  }
}

TEST(CollectiveTable, ReducingAndRootedFlags) {
  const std::set<Collective> reducing = {Collective::kAllReduce, Collective::kReduceScatter, Collective::kReduce};
  const std::set<Collective> rooted = {Collective::kBroadcast, Collective::kReduce, Collective::kGather,
                                       Collective::kScatter};
  for (Collective c : kAll) {
    EXPECT_EQ(info(c).reduces, reducing.count(c) == 1) << name(c);
    EXPECT_EQ(info(c).rooted, rooted.count(c) == 1) << name(c);
  }
}

TEST(ElementCounts, HandPickedExamples) {
  // 1000 floats over 3 ranks: 333 per rank, rounded down to a multiple of 4 elements.
  expect_counts(element_counts(Collective::kAllGather, 1000, 4, 3), {332, 996, 332, 332, 0}, "allgather f32 n3");
  expect_counts(element_counts(Collective::kReduceScatter, 1000, 4, 3), {996, 332, 332, 0, 332}, "rs f32 n3");
  expect_counts(element_counts(Collective::kAllToAll, 1000, 4, 3), {996, 996, 332, 0, 0}, "a2a f32 n3");
  expect_counts(element_counts(Collective::kGather, 1000, 4, 3), {332, 996, 332, 332, 0}, "gather f32 n3");
  expect_counts(element_counts(Collective::kScatter, 1000, 4, 3), {996, 332, 332, 0, 332}, "scatter f32 n3");
  // int8: multiples of 16 elements. 333 -> 320.
  expect_counts(element_counts(Collective::kAllGather, 1000, 1, 3), {320, 960, 320, 320, 0}, "allgather i8 n3");
  // double: multiples of 2 elements. 1001 / 2 = 500.
  expect_counts(element_counts(Collective::kReduceScatter, 1001, 8, 2), {1000, 500, 500, 0, 500}, "rs f64 n2");
  // Rooted and plain collectives keep the count as is, divisible or not.
  expect_counts(element_counts(Collective::kAllReduce, 1001, 4, 3), {1001, 1001, 1001, 0, 0}, "allreduce");
  expect_counts(element_counts(Collective::kBroadcast, 7, 1, 8), {7, 7, 7, 0, 0}, "broadcast");
  expect_counts(element_counts(Collective::kReduce, 13, 2, 4), {13, 13, 13, 0, 0}, "reduce");
  expect_counts(element_counts(Collective::kSendRecv, 5, 8, 2), {5, 5, 5, 0, 0}, "sendrecv");
  // Fewer than 16 bytes per rank: nothing is moved.
  expect_counts(element_counts(Collective::kAllGather, 7, 1, 1), {0, 0, 0, 0, 0}, "allgather tiny");
  expect_counts(element_counts(Collective::kAllToAll, 15, 4, 4), {0, 0, 0, 0, 0}, "a2a tiny");
  expect_counts(element_counts(Collective::kAllToAll, 60, 4, 4), {48, 48, 12, 0, 0}, "a2a 15 per rank -> 12");
}

TEST(ElementCounts, MatchTheRulesForManySizesTypesAndRankCounts) {
  const std::vector<size_t> counts = {0,
                                      1,
                                      3,
                                      15,
                                      16,
                                      17,
                                      31,
                                      32,
                                      33,
                                      64,
                                      100,
                                      1000,
                                      1023,
                                      1024,
                                      1025,
                                      4096 + 3,
                                      12345,
                                      65536,
                                      1 << 20,
                                      (1 << 20) + 7,
                                      (1u << 26) + 5};
  for (Collective c : kAll) {
    for (size_t elt : {1u, 2u, 4u, 8u}) {
      for (int n : {1, 2, 3, 4, 8}) {
        for (size_t count : counts) {
          const std::string where = std::string(name(c)) + " count=" + std::to_string(count) +
                                    " elt=" + std::to_string(elt) + " n=" + std::to_string(n);
          const ElementCounts e = element_counts(c, count, elt, n);
          expect_counts(e, reference_counts(c, count, elt, n), where);
          // Properties that follow from the rules: chunks are whole 16-byte units and
          // never exceed the count given.
          if (info(c).algbw_times_nranks) {
            EXPECT_EQ(e.param * elt % 16, 0u) << where;
          }
          EXPECT_LE(std::max(e.send, e.recv), count) << where;
          if (info(c).algbw_times_nranks && count >= static_cast<size_t>(n) * 16 / elt) {
            EXPECT_GT(e.param, 0u) << where;
            EXPECT_LT(count - e.param * static_cast<size_t>(n), static_cast<size_t>(n) * 16 / elt) << where;
          }
        }
      }
    }
  }
}

TEST(PrintedSize, IsTheLargerBufferInBytes) {
  EXPECT_EQ(printed_size_bytes(element_counts(Collective::kAllReduce, 1000, 4, 3), 4), 4000u);
  EXPECT_EQ(printed_size_bytes(element_counts(Collective::kAllGather, 1000, 4, 3), 4), 3984u);      // recv
  EXPECT_EQ(printed_size_bytes(element_counts(Collective::kReduceScatter, 1000, 4, 3), 4), 3984u);  // send
  EXPECT_EQ(printed_size_bytes(element_counts(Collective::kAllToAll, 1000, 4, 3), 4), 3984u);
  EXPECT_EQ(printed_size_bytes(element_counts(Collective::kScatter, 1000, 1, 3), 1), 960u);
  EXPECT_EQ(printed_size_bytes(element_counts(Collective::kAllGather, 33554432 / 4, 4, 8), 4), 33554432u);
  ElementCounts e;
  e.send = 3;
  e.recv = 10;
  EXPECT_EQ(printed_size_bytes(e, 8), 80u);
  e.send = 11;
  EXPECT_EQ(printed_size_bytes(e, 2), 22u);
}

TEST(BusbwFactor, PerCollective) {
  for (int n : {1, 2, 3, 4, 8, 16}) {
    const double nn = n;
    EXPECT_DOUBLE_EQ(busbw_factor(Collective::kAllReduce, n), 2 * (nn - 1) / nn) << n;
    for (Collective c : {Collective::kAllGather, Collective::kReduceScatter, Collective::kAllToAll, Collective::kGather,
                         Collective::kScatter}) {
      EXPECT_DOUBLE_EQ(busbw_factor(c, n), (nn - 1) / nn) << name(c) << " " << n;
    }
    for (Collective c : {Collective::kBroadcast, Collective::kReduce, Collective::kSendRecv}) {
      EXPECT_DOUBLE_EQ(busbw_factor(c, n), 1.0) << name(c) << " " << n;
    }
  }
  EXPECT_DOUBLE_EQ(busbw_factor(Collective::kAllReduce, 8), 1.75);
  EXPECT_DOUBLE_EQ(busbw_factor(Collective::kAllReduce, 1), 0.0);
  EXPECT_DOUBLE_EQ(busbw_factor(Collective::kAllGather, 4), 0.75);
}

TEST(Bandwidth, AllReduceOneGigabyteInOneSecondAtEightRanks) {
  Bandwidth bw = bandwidth(Collective::kAllReduce, 250'000'000, 4, 1.0, 8);
  EXPECT_DOUBLE_EQ(bw.algbw_gbps, 1.0);
  EXPECT_DOUBLE_EQ(bw.busbw_gbps, 1.75);
}

TEST(Bandwidth, RankScaledCollectivesCountEveryRanksChunk) {
  // 1 GB gathered across 8 ranks: 31.25 M floats per rank.
  for (Collective c : {Collective::kAllGather, Collective::kReduceScatter, Collective::kAllToAll, Collective::kGather,
                       Collective::kScatter}) {
    Bandwidth bw = bandwidth(c, 31'250'000, 4, 1.0, 8);
    EXPECT_DOUBLE_EQ(bw.algbw_gbps, 1.0) << name(c);
    EXPECT_DOUBLE_EQ(bw.busbw_gbps, 0.875) << name(c);
  }
}

TEST(Bandwidth, FactorOneCollectives) {
  for (Collective c : {Collective::kBroadcast, Collective::kReduce, Collective::kSendRecv}) {
    Bandwidth bw = bandwidth(c, 1'000'000, 8, 0.004, 4);  // 8 MB in 4 ms
    EXPECT_DOUBLE_EQ(bw.algbw_gbps, 2.0) << name(c);
    EXPECT_DOUBLE_EQ(bw.busbw_gbps, 2.0) << name(c);
  }
}

TEST(Bandwidth, ScalesWithTimeAndSize) {
  Bandwidth a = bandwidth(Collective::kAllReduce, 1 << 20, 4, 1e-3, 4);
  Bandwidth b = bandwidth(Collective::kAllReduce, 1 << 20, 4, 2e-3, 4);
  Bandwidth c = bandwidth(Collective::kAllReduce, 1 << 21, 2, 1e-3, 4);
  EXPECT_DOUBLE_EQ(a.algbw_gbps, 4.194304);
  EXPECT_DOUBLE_EQ(a.busbw_gbps, 4.194304 * 1.5);
  EXPECT_DOUBLE_EQ(b.algbw_gbps, a.algbw_gbps / 2);
  EXPECT_DOUBLE_EQ(c.algbw_gbps, a.algbw_gbps);
}

TEST(Bandwidth, SingleRankHasNoBusTraffic) {
  Bandwidth ar = bandwidth(Collective::kAllReduce, 1000, 4, 1e-6, 1);
  EXPECT_DOUBLE_EQ(ar.algbw_gbps, 4.0);
  EXPECT_DOUBLE_EQ(ar.busbw_gbps, 0.0);
  Bandwidth bc = bandwidth(Collective::kBroadcast, 1000, 4, 1e-6, 1);
  EXPECT_DOUBLE_EQ(bc.busbw_gbps, 4.0);
}

TEST(Bandwidth, NonPositiveTimeGivesZero) {
  for (double t : {0.0, -1.0}) {
    Bandwidth bw = bandwidth(Collective::kAllReduce, 1000, 4, t, 4);
    EXPECT_EQ(bw.algbw_gbps, 0.0);
    EXPECT_EQ(bw.busbw_gbps, 0.0);
  }
}

TEST(Bandwidth, LargeCountsDoNotOverflow) {
  // 2^40 bytes per rank, times 16 ranks, in 1000 s.
  Bandwidth bw = bandwidth(Collective::kAllGather, size_t{1} << 37, 8, 1000.0, 16);
  EXPECT_DOUBLE_EQ(bw.algbw_gbps, 16.0 * 1099511627776.0 / 1e9 / 1000.0);
}

TEST(CollectiveFromName, FabscopeAndNcclTestsNames) {
  for (Collective c : kAll) {
    auto r = collective_from_name(name(c));
    ASSERT_TRUE(r.ok()) << name(c);
    EXPECT_EQ(*r, c);
    auto nt = collective_from_name(info(c).nccl_tests_name);
    ASSERT_TRUE(nt.ok()) << info(c).nccl_tests_name;
    EXPECT_EQ(*nt, c);
  }
  struct Case {
    const char* text;
    Collective c;
  };
  for (const Case& k :
       {Case{"all_reduce", Collective::kAllReduce}, Case{"all_reduce_perf", Collective::kAllReduce},
        Case{"all-reduce", Collective::kAllReduce}, Case{"AllReduce", Collective::kAllReduce},
        Case{"all_gather", Collective::kAllGather}, Case{"reduce_scatter", Collective::kReduceScatter},
        Case{"reduce_scatter_perf", Collective::kReduceScatter}, Case{"alltoall_perf", Collective::kAllToAll},
        Case{"send_recv", Collective::kSendRecv}, Case{"reduce_perf", Collective::kReduce}}) {
    auto r = collective_from_name(k.text);
    ASSERT_TRUE(r.ok()) << k.text << ": " << r.status().message();
    EXPECT_EQ(*r, k.c) << k.text;
  }
}

TEST(CollectiveFromName, UnknownNamesListAllowedNames) {
  for (const char* bad : {"allreduc", "alltoallv", "hypercube_perf", "", "perf", "_perf", "all reduce"}) {
    auto r = collective_from_name(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().kind(), ErrorKind::kInvalidInput);
    const std::string& msg = r.status().message();
    EXPECT_NE(msg.find(std::string("'") + bad + "'"), std::string::npos) << msg;
    for (Collective c : kAll) EXPECT_NE(msg.find(std::string(name(c))), std::string::npos) << msg;
  }
}

}  // namespace
}  // namespace fabscope
