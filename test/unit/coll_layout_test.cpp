// buffer_layout() checked against a host-memory reference of every collective:
// ranks are plain arrays, inputs come from host_fill over layout.input, the data
// movement is done by hand, and host_count_wrong over layout.expected must be 0.
// Deliberately wrong movements must be caught.
#include "coll/layout.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "coll/collective.h"
#include "coll/pattern.h"
#include "core/dtype.h"

namespace fabscope {
namespace {

const std::vector<Collective> kAll = {Collective::kAllReduce, Collective::kAllGather, Collective::kReduceScatter,
                                      Collective::kAllToAll,  Collective::kBroadcast, Collective::kReduce,
                                      Collective::kGather,    Collective::kScatter,   Collective::kSendRecv};

// Ways to get the data movement wrong, for checking that verification catches them.
enum class Fault {
  kNone,
  kSwapChunks,      // allgather/gather/alltoall: chunks from the wrong source rank
  kWrongTranspose,  // alltoall: the right source rank's wrong chunk
  kWrongChunk,      // reducescatter/scatter: another rank's chunk
  kWrongPeer,       // sendrecv: from the next rank instead of the previous one
  kWrongRoot,       // broadcast: from another rank; reduce: result delivered to another rank
  kMissingRank,     // allreduce/reducescatter/reduce: the last rank's contribution left out
  kOutputAtZero,    // in-place reducescatter/scatter: output at offset 0, not at rank * chunk
  kNotWritten,      // the last rank's output is never written
};

struct Case {
  Collective coll;
  DataType dtype;
  std::optional<ReduceOp> op;
  int n = 1;
  int root = 0;
  bool in_place = false;
  size_t count = 0;
  Fault fault = Fault::kNone;
  bool mpi_inplace_output = false;  // in-place output at offset 0 instead of rank * offset

  std::string str() const {
    return std::string(name(coll)) + " " + std::string(name(dtype)) + "/" +
           (op ? std::string(name(*op)) : std::string("none")) + " n=" + std::to_string(n) +
           " root=" + std::to_string(root) + (in_place ? " in-place" : " out-of-place") +
           " count=" + std::to_string(count) + " fault=" + std::to_string(static_cast<int>(fault));
  }
};

template <typename T>
T sentinel() {
  if constexpr (std::is_floating_point_v<T>) {
    return std::numeric_limits<T>::quiet_NaN();
  } else {
    return static_cast<T>(0x5a);
  }
}

template <typename T>
T apply(ReduceOp op, T a, T b) {
  switch (op) {
    case ReduceOp::kSum:
      return static_cast<T>(a + b);
    case ReduceOp::kMin:
      return std::min(a, b);
    case ReduceOp::kMax:
      return std::max(a, b);
    case ReduceOp::kProd:
      return static_cast<T>(a * b);
    case ReduceOp::kAvg:
      break;
  }
  ADD_FAILURE() << "operator not simulated";
  return a;
}

struct Outcome {
  uint64_t wrong = 0;           // summed over ranks
  uint64_t expected_elems = 0;  // summed over ranks
  bool layout_ok = true;        // every segment lies inside its buffer
};

// Runs one collective over n simulated ranks; returns the wrong-element count.
template <typename T>
Outcome simulate(const Case& k) {
  const int n = k.n;
  const size_t nn = static_cast<size_t>(n);
  const ElementCounts ec = element_counts(k.coll, k.count, sizeof(T), n);
  const size_t c = ec.param;
  const PatternSpec spec{k.dtype, k.op, 0xC0FFEEull + static_cast<uint64_t>(n), n};

  std::vector<BufferLayout> layouts(nn);
  std::vector<std::vector<T>> send(nn, std::vector<T>(ec.send, sentinel<T>()));
  std::vector<std::vector<T>> recv(nn, std::vector<T>(std::max(ec.send, ec.recv), sentinel<T>()));
  for (int r = 0; r < n; ++r) {
    const size_t rr = static_cast<size_t>(r);
    LayoutArgs a;
    a.coll = k.coll;
    a.rank = r;
    a.nranks = n;
    a.root = k.root;
    a.in_place = k.in_place;
    a.counts = ec;
    a.inplace_output_offset = k.in_place && !k.mpi_inplace_output ? rr * ec.recv_inplace_offset : 0;
    layouts[rr] = buffer_layout(a);
    const BufferLayout& l = layouts[rr];
    bool ok = true;
    auto check = [&](bool cond, const char* what) {
      EXPECT_TRUE(cond) << k.str() << " rank " << r << ": " << what;
      ok = ok && cond;
    };
    check(l.input_in_recv == k.in_place, "input_in_recv differs from in_place");
    std::vector<T>& in_buf = l.input_in_recv ? recv[rr] : send[rr];
    for (const Segment& s : l.input) {
      check(s.offset + s.count <= in_buf.size(), "input past the buffer");
      check(s.src_rank == r, "a rank's input is not its own data");
    }
    for (const Segment& s : l.expected) check(s.offset + s.count <= recv[rr].size(), "expected past the buffer");
    if (!ok) {
      Outcome bad;
      bad.layout_ok = false;
      return bad;
    }
    host_fill(in_buf.data(), spec, l.input);
  }

  // What each rank offers: nccl's in-place send buffer is recv + rank * send_inplace_offset.
  std::vector<std::vector<T>> in(nn);
  for (size_t r = 0; r < nn; ++r) {
    const T* p = k.in_place ? recv[r].data() + r * ec.send_inplace_offset : send[r].data();
    in[r].assign(p, p + ec.send);
  }
  auto out = [&](size_t r) -> T* {
    size_t off = k.in_place ? r * ec.recv_inplace_offset : 0;
    if (k.mpi_inplace_output || (k.fault == Fault::kOutputAtZero)) off = 0;
    return recv[r].data() + off;
  };
  auto reduce_at = [&](size_t index) {  // over every rank's input element `index`
    const size_t last = k.fault == Fault::kMissingRank ? nn - 1 : nn;
    T acc = in[0][index];
    for (size_t j = 1; j < last; ++j) acc = apply(*k.op, acc, in[j][index]);
    return acc;
  };
  const size_t root = static_cast<size_t>(k.root);
  const bool skip_last = k.fault == Fault::kNotWritten;

  for (size_t r = 0; r < nn; ++r) {
    if (skip_last && r == nn - 1) continue;
    T* o = out(r);
    switch (k.coll) {
      case Collective::kAllReduce:
        for (size_t i = 0; i < c; ++i) o[i] = reduce_at(i);
        break;
      case Collective::kAllGather:
        for (size_t j = 0; j < nn; ++j) {
          const size_t src = k.fault == Fault::kSwapChunks ? nn - 1 - j : j;
          for (size_t i = 0; i < c; ++i) o[j * c + i] = in[src][i];
        }
        break;
      case Collective::kReduceScatter: {
        const size_t chunk = k.fault == Fault::kWrongChunk ? (r + 1) % nn : r;
        for (size_t i = 0; i < c; ++i) o[i] = reduce_at(chunk * c + i);
        break;
      }
      case Collective::kAllToAll:
        for (size_t j = 0; j < nn; ++j) {
          size_t src = j;
          size_t chunk = r;
          if (k.fault == Fault::kSwapChunks) src = nn - 1 - j;
          if (k.fault == Fault::kWrongTranspose) chunk = j;
          for (size_t i = 0; i < c; ++i) o[j * c + i] = in[src][chunk * c + i];
        }
        break;
      case Collective::kBroadcast: {
        const size_t src = k.fault == Fault::kWrongRoot ? (root + 1) % nn : root;
        for (size_t i = 0; i < c; ++i) o[i] = in[src][i];
        break;
      }
      case Collective::kReduce: {
        const size_t dst = k.fault == Fault::kWrongRoot ? (root + 1) % nn : root;
        if (r == dst) {
          for (size_t i = 0; i < c; ++i) o[i] = reduce_at(i);
        }
        break;
      }
      case Collective::kGather:
        if (r == root) {
          for (size_t j = 0; j < nn; ++j) {
            const size_t src = k.fault == Fault::kSwapChunks ? nn - 1 - j : j;
            for (size_t i = 0; i < c; ++i) o[j * c + i] = in[src][i];
          }
        }
        break;
      case Collective::kScatter: {
        const size_t chunk = k.fault == Fault::kWrongChunk ? (r + 1) % nn : r;
        for (size_t i = 0; i < c; ++i) o[i] = in[root][chunk * c + i];
        break;
      }
      case Collective::kSendRecv: {
        const size_t src = k.fault == Fault::kWrongPeer ? (r + 1) % nn : (r + nn - 1) % nn;
        for (size_t i = 0; i < c; ++i) o[i] = in[src][i];
        break;
      }
    }
  }

  Outcome result;
  for (size_t r = 0; r < nn; ++r) {
    result.wrong += host_count_wrong(recv[r].data(), spec, layouts[r].expected);
    for (const Segment& s : layouts[r].expected) result.expected_elems += s.count;
  }
  return result;
}

Outcome run(const Case& k) { return k.dtype == DataType::kFloat ? simulate<float>(k) : simulate<int8_t>(k); }

// How many elements all ranks together must check after the collective.
uint64_t expected_total(Collective coll, int n, size_t c) {
  const uint64_t nn = static_cast<uint64_t>(n);
  switch (coll) {
    case Collective::kAllReduce:
    case Collective::kReduceScatter:
    case Collective::kBroadcast:
    case Collective::kScatter:
    case Collective::kSendRecv:
      return nn * c;
    case Collective::kAllGather:
    case Collective::kAllToAll:
      return nn * nn * c;
    case Collective::kReduce:
      return c;
    case Collective::kGather:
      return nn * c;
  }
  return 0;
}

std::vector<int> roots_for(Collective coll, int n) {
  if (!info(coll).rooted) return {0};
  std::vector<int> roots = {0, n - 1, n / 2};
  std::sort(roots.begin(), roots.end());
  roots.erase(std::unique(roots.begin(), roots.end()), roots.end());
  return roots;
}

// Float sum and int8 min for reductions; both types, no operator, for the rest.
std::vector<std::pair<DataType, std::optional<ReduceOp>>> types_for(Collective coll) {
  if (info(coll).reduces) return {{DataType::kFloat, ReduceOp::kSum}, {DataType::kInt8, ReduceOp::kMin}};
  return {{DataType::kFloat, std::nullopt}, {DataType::kInt8, std::nullopt}};
}

TEST(Layout, ReferenceSimulationVerifiesForEveryCollective) {
  int cases = 0;
  for (Collective coll : kAll) {
    for (const auto& [dtype, op] : types_for(coll)) {
      for (int n : {1, 2, 3, 4, 5}) {
        for (int root : roots_for(coll, n)) {
          for (bool in_place : {false, true}) {
            for (size_t count : {size_t{1000}, size_t{4099}, size_t{8}}) {
              const Case k{coll, dtype, op, n, root, in_place, count};
              const Outcome o = run(k);
              ASSERT_TRUE(o.layout_ok) << k.str();
              EXPECT_EQ(o.wrong, 0u) << k.str();
              const size_t c = element_counts(coll, count, element_size(dtype), n).param;
              EXPECT_EQ(o.expected_elems, expected_total(coll, n, c)) << k.str();
              ++cases;
            }
          }
        }
      }
    }
  }
  EXPECT_GT(cases, 300);
}

TEST(Layout, InPlaceOutputAtOffsetZeroForMpiConvention) {
  // With inplace_output_offset = 0 the reduce-scatter result is expected at the
  // start of the receive buffer.
  for (int n : {1, 2, 3, 5}) {
    Case k{Collective::kReduceScatter, DataType::kFloat, ReduceOp::kSum, n, 0, true, 1000};
    k.mpi_inplace_output = true;
    EXPECT_EQ(run(k).wrong, 0u) << k.str();
  }
}

TEST(Layout, WrongMovementsAreDetected) {
  struct Bad {
    Collective coll;
    Fault fault;
    int min_n;
    bool in_place_only = false;
    bool root_zero_only = false;  // the fault shows only on a non-root rank above 0
  };
  const std::vector<Bad> bads = {
      {Collective::kAllGather, Fault::kSwapChunks, 2},
      {Collective::kGather, Fault::kSwapChunks, 2},
      {Collective::kAllToAll, Fault::kSwapChunks, 2},
      {Collective::kAllToAll, Fault::kWrongTranspose, 2},
      {Collective::kReduceScatter, Fault::kWrongChunk, 2},
      {Collective::kScatter, Fault::kWrongChunk, 2},
      {Collective::kSendRecv, Fault::kWrongPeer, 3},
      {Collective::kBroadcast, Fault::kWrongRoot, 2},
      {Collective::kReduce, Fault::kWrongRoot, 2},
      {Collective::kAllReduce, Fault::kMissingRank, 2},
      {Collective::kReduceScatter, Fault::kMissingRank, 2},
      {Collective::kReduce, Fault::kMissingRank, 2},
      {Collective::kReduceScatter, Fault::kOutputAtZero, 2, true},
      // In place, scatter's root already holds its own chunk where it belongs.
      {Collective::kScatter, Fault::kOutputAtZero, 2, true, true},
  };
  for (const Bad& b : bads) {
    for (const auto& [dtype, op] : types_for(b.coll)) {
      for (int n = b.min_n; n <= 5; ++n) {
        for (int root : roots_for(b.coll, n)) {
          if (b.root_zero_only && root != 0) continue;
          for (bool in_place : {false, true}) {
            if (b.in_place_only && !in_place) continue;
            const Case k{b.coll, dtype, op, n, root, in_place, 1000, b.fault};
            const Outcome o = run(k);
            ASSERT_TRUE(o.layout_ok) << k.str();
            EXPECT_GT(o.wrong, 0u) << k.str();
          }
        }
      }
    }
  }
}

TEST(Layout, UnwrittenOutputIsDetected) {
  for (Collective coll : kAll) {
    for (int n : {1, 2, 4}) {
      for (bool in_place : {false, true}) {
        // The last rank's output is left alone (root 0).
        const Case k{
            coll, DataType::kFloat,  info(coll).reduces ? std::optional(ReduceOp::kSum) : std::nullopt, n, 0, in_place,
            1000, Fault::kNotWritten};
        const Outcome o = run(k);
        ASSERT_TRUE(o.layout_ok) << k.str();
        // The last rank is the root of reduce and gather only when n == 1; otherwise it
        // has no output to check there.
        const bool last_has_output = !(coll == Collective::kReduce || coll == Collective::kGather) || n == 1;
        // In place with one rank, every collective's output is its input, already in place.
        const bool already_there = in_place && n == 1;
        if (last_has_output && !already_there) {
          EXPECT_GT(o.wrong, 0u) << k.str();
        } else {
          EXPECT_EQ(o.wrong, 0u) << k.str();
        }
      }
    }
  }
}

TEST(Layout, SegmentsOfSpecificCases) {
  // Allgather, 3 ranks, rank 1, in place: its input is its own slot of the receive buffer.
  const ElementCounts ag = element_counts(Collective::kAllGather, 1000, 4, 3);  // chunk 332
  LayoutArgs a;
  a.coll = Collective::kAllGather;
  a.rank = 1;
  a.nranks = 3;
  a.in_place = true;
  a.counts = ag;
  BufferLayout l = buffer_layout(a);
  ASSERT_EQ(l.input.size(), 1u);
  EXPECT_TRUE(l.input_in_recv);
  EXPECT_EQ(l.input[0].offset, 332u);
  EXPECT_EQ(l.input[0].count, 332u);
  EXPECT_EQ(l.input[0].src_rank, 1);
  ASSERT_EQ(l.expected.size(), 3u);
  for (size_t j = 0; j < 3; ++j) {
    EXPECT_EQ(l.expected[j].offset, j * 332);
    EXPECT_EQ(l.expected[j].src_rank, static_cast<int>(j));
    EXPECT_EQ(l.expected[j].index_base, 0u);
  }

  // Alltoall, rank 2 of 4: receives chunk 2 of every rank's pattern.
  LayoutArgs t;
  t.coll = Collective::kAllToAll;
  t.rank = 2;
  t.nranks = 4;
  t.counts = element_counts(Collective::kAllToAll, 1024, 4, 4);  // chunk 256
  l = buffer_layout(t);
  EXPECT_FALSE(l.input_in_recv);
  ASSERT_EQ(l.expected.size(), 4u);
  for (size_t j = 0; j < 4; ++j) {
    EXPECT_EQ(l.expected[j].offset, j * 256);
    EXPECT_EQ(l.expected[j].src_rank, static_cast<int>(j));
    EXPECT_EQ(l.expected[j].index_base, 2u * 256);
  }

  // Reduce-scatter, rank 3 of 4, in place with nccl's offset: the reduced chunk 3.
  LayoutArgs rs;
  rs.coll = Collective::kReduceScatter;
  rs.rank = 3;
  rs.nranks = 4;
  rs.in_place = true;
  rs.counts = element_counts(Collective::kReduceScatter, 1024, 4, 4);
  rs.inplace_output_offset = 3 * rs.counts.recv_inplace_offset;
  l = buffer_layout(rs);
  ASSERT_EQ(l.expected.size(), 1u);
  EXPECT_EQ(l.expected[0].offset, 768u);
  EXPECT_EQ(l.expected[0].src_rank, kAllRanks);
  EXPECT_EQ(l.expected[0].index_base, 768u);

  // Broadcast and scatter: only the root has input; reduce and gather: only the root has output.
  for (Collective coll : {Collective::kBroadcast, Collective::kScatter, Collective::kReduce, Collective::kGather}) {
    for (int rank = 0; rank < 3; ++rank) {
      LayoutArgs b;
      b.coll = coll;
      b.rank = rank;
      b.nranks = 3;
      b.root = 1;
      b.counts = element_counts(coll, 960, 4, 3);
      l = buffer_layout(b);
      const bool root_only_input = coll == Collective::kBroadcast || coll == Collective::kScatter;
      if (root_only_input) {
        EXPECT_EQ(l.input.empty(), rank != 1) << name(coll) << " rank " << rank;
        EXPECT_FALSE(l.expected.empty()) << name(coll) << " rank " << rank;
      } else {
        EXPECT_FALSE(l.input.empty()) << name(coll) << " rank " << rank;
        EXPECT_EQ(l.expected.empty(), rank != 1) << name(coll) << " rank " << rank;
      }
    }
  }

  // Sendrecv: rank 0 receives from the last rank.
  LayoutArgs s;
  s.coll = Collective::kSendRecv;
  s.rank = 0;
  s.nranks = 5;
  s.counts = element_counts(Collective::kSendRecv, 100, 4, 5);
  l = buffer_layout(s);
  ASSERT_EQ(l.expected.size(), 1u);
  EXPECT_EQ(l.expected[0].src_rank, 4);
}

}  // namespace
}  // namespace fabscope
