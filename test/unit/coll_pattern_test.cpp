// The verification pattern: reducing host_fill's per-rank inputs in any order, with
// the element type's own arithmetic, must give what host_count_wrong expects.
#include "coll/pattern.h"
#include "coll/pattern_math.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "core/dtype.h"

namespace fabscope {
namespace {

// ---------------------------------------------------------------------------
// Element arithmetic, written independently of pattern.cpp.

template <typename T>
constexpr bool kIsInt = std::is_integral_v<T>;

template <typename T>
double as_double(T v) {
  if constexpr (std::is_same_v<T, Half>) {
    return half_to_float(v);
  } else if constexpr (std::is_same_v<T, Bfloat16>) {
    return bfloat16_to_float(v);
  } else {
    return static_cast<double>(v);
  }
}

template <typename T>
T combine(ReduceOp op, T a, T b) {
  if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, Bfloat16>) {
    const float x = static_cast<float>(as_double(a));
    const float y = static_cast<float>(as_double(b));
    float r = 0;
    switch (op) {
      case ReduceOp::kSum:
      case ReduceOp::kAvg:
        r = x + y;
        break;
      case ReduceOp::kProd:
        r = x * y;
        break;
      case ReduceOp::kMin:
        r = std::min(x, y);
        break;
      case ReduceOp::kMax:
        r = std::max(x, y);
        break;
    }
    if constexpr (std::is_same_v<T, Half>) {
      return float_to_half(r);
    } else {
      return float_to_bfloat16(r);
    }
  } else if constexpr (kIsInt<T>) {
    // Wrap-around in the unsigned type of the same width.
    using U = std::make_unsigned_t<T>;
    const U x = static_cast<U>(a);
    const U y = static_cast<U>(b);
    switch (op) {
      case ReduceOp::kSum:
      case ReduceOp::kAvg:
        return static_cast<T>(static_cast<U>(x + y));
      case ReduceOp::kProd:
        return static_cast<T>(static_cast<U>(x * y));
      case ReduceOp::kMin:
        return std::min(a, b);
      case ReduceOp::kMax:
        return std::max(a, b);
    }
    return a;
  } else {
    switch (op) {
      case ReduceOp::kSum:
      case ReduceOp::kAvg:
        return a + b;
      case ReduceOp::kProd:
        return a * b;
      case ReduceOp::kMin:
        return std::min(a, b);
      case ReduceOp::kMax:
        return std::max(a, b);
    }
    return a;
  }
}

template <typename T>
using Buffer = std::vector<T>;

template <typename T>
void combine_into(ReduceOp op, Buffer<T>& acc, const Buffer<T>& in) {
  for (size_t i = 0; i < acc.size(); ++i) acc[i] = combine(op, acc[i], in[i]);
}

// Reduces in the given rank order, left to right.
template <typename T>
Buffer<T> reduce_in_order(ReduceOp op, const std::vector<Buffer<T>>& inputs, const std::vector<int>& order) {
  Buffer<T> acc = inputs[static_cast<size_t>(order[0])];
  for (size_t k = 1; k < order.size(); ++k) combine_into(op, acc, inputs[static_cast<size_t>(order[k])]);
  return acc;
}

// Reduces as a binary tree: neighbours pairwise, level by level.
template <typename T>
Buffer<T> reduce_as_tree(ReduceOp op, const std::vector<Buffer<T>>& inputs) {
  std::vector<Buffer<T>> level = inputs;
  while (level.size() > 1) {
    std::vector<Buffer<T>> next;
    for (size_t i = 0; i + 1 < level.size(); i += 2) {
      Buffer<T> b = level[i];
      combine_into(op, b, level[i + 1]);
      next.push_back(std::move(b));
    }
    if (level.size() % 2 == 1) next.push_back(level.back());
    level = std::move(next);
  }
  return level[0];
}

std::string describe(DataType t, std::optional<ReduceOp> op, int n, uint64_t seed = 0) {
  return std::string(name(t)) + "/" + (op ? std::string(name(*op)) : std::string("none")) + " n=" + std::to_string(n) +
         " seed=" + std::to_string(seed);
}

template <typename T>
std::vector<Buffer<T>> rank_inputs(const PatternSpec& spec, size_t count, uint64_t index_base) {
  std::vector<Buffer<T>> inputs(static_cast<size_t>(spec.nranks), Buffer<T>(count));
  for (int r = 0; r < spec.nranks; ++r) {
    const Segment seg{0, count, r, index_base};
    host_fill(inputs[static_cast<size_t>(r)].data(), spec, std::span<const Segment>(&seg, 1));
  }
  return inputs;
}

// The key property, for one type, operator and rank count.
template <typename T>
void check_any_order_verifies(DataType dtype, ReduceOp op, int n, uint64_t seed, size_t count) {
  const std::string where = describe(dtype, op, n, seed);
  const PatternSpec spec{dtype, op, seed, n};
  const uint64_t index_base = 1000003;
  const std::vector<Buffer<T>> inputs = rank_inputs<T>(spec, count, index_base);

  std::vector<int> forward(static_cast<size_t>(n));
  std::iota(forward.begin(), forward.end(), 0);
  std::vector<int> reverse(forward.rbegin(), forward.rend());
  std::vector<int> shuffled = forward;
  std::mt19937 rng(static_cast<uint32_t>(n * 7919 + static_cast<int>(dtype)));
  std::shuffle(shuffled.begin(), shuffled.end(), rng);

  struct Result {
    const char* order;
    Buffer<T> data;
  };
  std::vector<Result> results;
  results.push_back({"forward", reduce_in_order(op, inputs, forward)});
  results.push_back({"reverse", reduce_in_order(op, inputs, reverse)});
  results.push_back({"shuffled", reduce_in_order(op, inputs, shuffled)});
  results.push_back({"tree", reduce_as_tree(op, inputs)});

  const Segment expected{0, count, kAllRanks, index_base};
  for (Result& res : results) {
    if (op == ReduceOp::kAvg) host_divide(res.data.data(), count, dtype, n);
    EXPECT_EQ(host_count_wrong(res.data.data(), spec, std::span<const Segment>(&expected, 1)), 0u)
        << where << " order=" << res.order;
  }
  // Every order gives the same values, and expected_value agrees with them.
  for (size_t i = 0; i < count; ++i) {
    const double want = as_double(results[0].data[i]);
    for (const Result& res : results) ASSERT_EQ(as_double(res.data[i]), want) << where << " order=" << res.order;
    ASSERT_EQ(expected_value(spec, kAllRanks, index_base + i), want) << where << " i=" << i;
  }
  // The data is not degenerate: a sum, product, min or max of random inputs is not all zeros.
  if (op != ReduceOp::kAvg) {
    const bool any_nonzero =
        std::any_of(results[0].data.begin(), results[0].data.end(), [](T v) { return as_double(v) != 0; });
    EXPECT_TRUE(any_nonzero) << where;
  }
}

TEST(Pattern, ReductionInAnyOrderVerifies) {
  for (DataType dtype : kAllDataTypes) {
    for (ReduceOp op : kAllReduceOps) {
      for (int n : {1, 2, 3, 4, 5, 8, 13, 300}) {
        visit_data_type(dtype, [&](auto tag) {
          check_any_order_verifies<decltype(tag)>(dtype, op, n, 0x5eedull + static_cast<uint64_t>(n), 96);
        });
      }
    }
  }
}

TEST(Pattern, SixteenBitFloatsBeyondTheirExactIntegerLimit) {
  // bfloat16 is exact up to 256 and half up to 2048: these rank counts exceed both.
  for (DataType dtype : {DataType::kHalf, DataType::kBfloat16}) {
    for (ReduceOp op : kAllReduceOps) {
      for (int n : {257, 300, 2049, 3000}) {
        visit_data_type(dtype, [&](auto tag) { check_any_order_verifies<decltype(tag)>(dtype, op, n, 77, 48); });
      }
    }
  }
}

TEST(Pattern, OtherSeeds) {
  for (uint64_t seed : {0ull, 1ull, 0xffffffffffffffffull}) {
    for (DataType dtype : {DataType::kInt8, DataType::kHalf, DataType::kBfloat16, DataType::kFloat}) {
      for (ReduceOp op : kAllReduceOps) {
        visit_data_type(dtype, [&](auto tag) { check_any_order_verifies<decltype(tag)>(dtype, op, 6, seed, 64); });
      }
    }
  }
}

// Flips one bit that changes the value by far more than 2 ulp.
template <typename T>
void corrupt(T& v) {
  if constexpr (std::is_same_v<T, Half>) {
    v.bits = static_cast<uint16_t>(v.bits ^ 0x0200);
  } else if constexpr (std::is_same_v<T, Bfloat16>) {
    v.bits = static_cast<uint16_t>(v.bits ^ 0x0040);
  } else if constexpr (std::is_same_v<T, float>) {
    v = std::bit_cast<float>(std::bit_cast<uint32_t>(v) ^ 0x00400000u);
  } else if constexpr (std::is_same_v<T, double>) {
    v = std::bit_cast<double>(std::bit_cast<uint64_t>(v) ^ 0x0008000000000000ull);
  } else {
    v = static_cast<T>(v ^ static_cast<T>(1));
  }
}

TEST(Pattern, APlantedWrongValueIsCountedOnce) {
  const int n = 4;
  const size_t count = 64;
  for (DataType dtype : kAllDataTypes) {
    for (ReduceOp op : kAllReduceOps) {
      visit_data_type(dtype, [&](auto tag) {
        using T = decltype(tag);
        const PatternSpec spec{dtype, op, 9, n};
        auto inputs = rank_inputs<T>(spec, count, 0);
        std::vector<int> order = {0, 1, 2, 3};
        Buffer<T> out = reduce_in_order(op, inputs, order);
        if (op == ReduceOp::kAvg) host_divide(out.data(), count, dtype, n);
        const Segment seg{0, count, kAllRanks, 0};
        ASSERT_EQ(host_count_wrong(out.data(), spec, std::span<const Segment>(&seg, 1)), 0u);
        for (size_t at : {size_t{0}, size_t{17}, count - 1}) {
          Buffer<T> bad = out;
          corrupt(bad[at]);
          EXPECT_EQ(host_count_wrong(bad.data(), spec, std::span<const Segment>(&seg, 1)), 1u)
              << describe(dtype, op, n) << " at " << at;
        }
        Buffer<T> two = out;
        corrupt(two[3]);
        corrupt(two[40]);
        EXPECT_EQ(host_count_wrong(two.data(), spec, std::span<const Segment>(&seg, 1)), 2u) << describe(dtype, op, n);
      });
    }
  }
}

// Moves a floating value by `ulps` representable steps away from zero.
template <typename T>
T step_ulps(T v, int ulps) {
  if constexpr (std::is_same_v<T, Half>) {
    return Half{static_cast<uint16_t>(v.bits + ulps)};
  } else {
    static_assert(std::is_same_v<T, float>);
    return std::bit_cast<float>(std::bit_cast<uint32_t>(v) + static_cast<uint32_t>(ulps));
  }
}

TEST(Pattern, AverageAllowsTwoUlpOtherOperatorsNone) {
  const int n = 3;
  const size_t count = 32;
  for (DataType dtype : {DataType::kFloat, DataType::kHalf}) {
    for (ReduceOp op : {ReduceOp::kAvg, ReduceOp::kSum}) {
      visit_data_type(dtype, [&](auto tag) {
        using T = decltype(tag);
        if constexpr (std::is_same_v<T, float> || std::is_same_v<T, Half>) {
          const PatternSpec spec{dtype, op, 5, n};
          auto inputs = rank_inputs<T>(spec, count, 0);
          Buffer<T> out = reduce_in_order(op, inputs, {0, 1, 2});
          if (op == ReduceOp::kAvg) host_divide(out.data(), count, dtype, n);
          const Segment seg{0, count, kAllRanks, 0};
          const auto segs = std::span<const Segment>(&seg, 1);
          // Pick a non-zero element so that stepping its bits stays away from the sign change.
          size_t at = 0;
          while (at < count && as_double(out[at]) == 0) ++at;
          ASSERT_LT(at, count);
          for (int ulps : {1, 2, 3}) {
            Buffer<T> moved = out;
            moved[at] = step_ulps(moved[at], ulps);
            const uint64_t want = op == ReduceOp::kAvg && ulps <= 2 ? 0 : 1;
            EXPECT_EQ(host_count_wrong(moved.data(), spec, segs), want) << describe(dtype, op, n) << " ulps=" << ulps;
          }
        }
      });
    }
  }
}

TEST(Pattern, CopySegmentsVerifyTheirOwnRankOnly) {
  const int n = 4;
  const size_t count = 128;
  for (DataType dtype : kAllDataTypes) {
    std::vector<std::optional<ReduceOp>> ops = {std::nullopt};
    for (ReduceOp op : kAllReduceOps) ops.push_back(op);
    for (const auto& op : ops) {
      visit_data_type(dtype, [&](auto tag) {
        using T = decltype(tag);
        const PatternSpec spec{dtype, op, 42, n};
        PatternSpec other_seed = spec;
        other_seed.seed = 43;
        for (int r = 0; r < n; ++r) {
          const uint64_t base = 5000 + static_cast<uint64_t>(r) * count;
          Buffer<T> buf(count);
          const Segment seg{0, count, r, base};
          host_fill(buf.data(), spec, std::span<const Segment>(&seg, 1));
          const std::string where = describe(dtype, op, n) + " rank " + std::to_string(r);
          EXPECT_EQ(host_count_wrong(buf.data(), spec, std::span<const Segment>(&seg, 1)), 0u) << where;
          const Segment wrong_rank{0, count, (r + 1) % n, base};
          EXPECT_GT(host_count_wrong(buf.data(), spec, std::span<const Segment>(&wrong_rank, 1)), 0u) << where;
          const Segment wrong_index{0, count, r, base + count};
          EXPECT_GT(host_count_wrong(buf.data(), spec, std::span<const Segment>(&wrong_index, 1)), 0u) << where;
          EXPECT_GT(host_count_wrong(buf.data(), other_seed, std::span<const Segment>(&seg, 1)), 0u) << where;
          // pattern_value agrees with the buffer, element by element.
          for (size_t i = 0; i < count; ++i) {
            ASSERT_EQ(pattern_value(spec, r, base + i), as_double(buf[i])) << where << " i=" << i;
            ASSERT_EQ(expected_value(spec, r, base + i), as_double(buf[i])) << where << " i=" << i;
          }
        }
      });
    }
  }
}

TEST(Pattern, SegmentsAtOffsets) {
  // Two segments of different ranks side by side in one buffer, with a gap between them.
  const PatternSpec spec{DataType::kInt32, std::nullopt, 3, 3};
  std::vector<int32_t> buf(100, -12345);
  const std::vector<Segment> segs = {{10, 20, 2, 7}, {50, 30, 0, 0}};
  host_fill(buf.data(), spec, segs);
  EXPECT_EQ(host_count_wrong(buf.data(), spec, segs), 0u);
  for (size_t i = 0; i < 10; ++i) EXPECT_EQ(buf[i], -12345);    // untouched before
  for (size_t i = 30; i < 50; ++i) EXPECT_EQ(buf[i], -12345);   // and between
  for (size_t i = 80; i < 100; ++i) EXPECT_EQ(buf[i], -12345);  // and after
  for (size_t i = 0; i < 20; ++i) EXPECT_EQ(static_cast<double>(buf[10 + i]), pattern_value(spec, 2, 7 + i));
  buf[35] = 0;  // outside every segment: not counted
  EXPECT_EQ(host_count_wrong(buf.data(), spec, segs), 0u);
  buf[79] = buf[79] + 1;
  EXPECT_EQ(host_count_wrong(buf.data(), spec, segs), 1u);
}

TEST(Pattern, FloatingInputsAreSmallIntegers) {
  // Sums stay exact because inputs are small integers, and products have exactly
  // one factor 2 or 3 per element, the rest +-1.
  for (DataType dtype : {DataType::kHalf, DataType::kBfloat16, DataType::kFloat, DataType::kDouble}) {
    for (int n : {2, 5, 13}) {
      const PatternSpec sum{dtype, ReduceOp::kSum, 1, n};
      const PatternSpec prod{dtype, ReduceOp::kProd, 1, n};
      for (uint64_t i = 0; i < 200; ++i) {
        int big = 0;
        for (int r = 0; r < n; ++r) {
          const double s = pattern_value(sum, r, i);
          ASSERT_EQ(s, std::trunc(s)) << name(dtype);
          ASSERT_LE(std::fabs(s), 8.0) << name(dtype);
          const double p = std::fabs(pattern_value(prod, r, i));
          ASSERT_TRUE(p == 1 || p == 2 || p == 3) << name(dtype) << " " << p;
          big += p > 1 ? 1 : 0;
        }
        ASSERT_EQ(big, 1) << name(dtype) << " n=" << n << " i=" << i;
      }
    }
  }
}

TEST(Pattern, RanksAndSeedsGiveDifferentData) {
  const PatternSpec a{DataType::kFloat, std::nullopt, 1, 8};
  const PatternSpec b{DataType::kFloat, std::nullopt, 2, 8};
  int same_rank = 0;
  int same_seed = 0;
  for (uint64_t i = 0; i < 100; ++i) {
    same_rank += pattern_value(a, 0, i) == pattern_value(a, 1, i) ? 1 : 0;
    same_seed += pattern_value(a, 3, i) == pattern_value(b, 3, i) ? 1 : 0;
  }
  EXPECT_LT(same_rank, 5);
  EXPECT_LT(same_seed, 5);
}

// ---------------------------------------------------------------------------
// host_divide

TEST(HostDivide, FloatingTypes) {
  std::vector<float> f = {10, -7, 3, 1};
  host_divide(f.data(), 3, DataType::kFloat, 4);
  EXPECT_EQ(f, (std::vector<float>{2.5f, -1.75f, 0.75f, 1.0f}));  // the 4th is past `count`

  std::vector<double> d = {1, -9};
  host_divide(d.data(), 2, DataType::kDouble, 3);
  EXPECT_EQ(d[0], 1.0 / 3.0);
  EXPECT_EQ(d[1], -3.0);

  std::vector<Half> h = {float_to_half(3), float_to_half(1), float_to_half(-2048)};
  host_divide(h.data(), 3, DataType::kHalf, 2);
  EXPECT_EQ(half_to_float(h[0]), 1.5f);
  EXPECT_EQ(half_to_float(h[1]), 0.5f);
  EXPECT_EQ(half_to_float(h[2]), -1024.0f);
  std::vector<Half> third = {float_to_half(1)};
  host_divide(third.data(), 1, DataType::kHalf, 3);
  EXPECT_EQ(third[0].bits, float_to_half(1.0f / 3.0f).bits);

  std::vector<Bfloat16> b = {float_to_bfloat16(3), float_to_bfloat16(-256)};
  host_divide(b.data(), 2, DataType::kBfloat16, 4);
  EXPECT_EQ(bfloat16_to_float(b[0]), 0.75f);
  EXPECT_EQ(bfloat16_to_float(b[1]), -64.0f);
  std::vector<Bfloat16> b3 = {float_to_bfloat16(1)};
  host_divide(b3.data(), 1, DataType::kBfloat16, 3);
  EXPECT_EQ(b3[0].bits, float_to_bfloat16(1.0f / 3.0f).bits);
}

TEST(HostDivide, IntegersTruncateTowardZero) {
  std::vector<int32_t> i = {10, -7, 3, 2147483647};
  host_divide(i.data(), 4, DataType::kInt32, 4);
  EXPECT_EQ(i, (std::vector<int32_t>{2, -1, 0, 536870911}));

  std::vector<int8_t> s = {100, -100, 127, -128};
  host_divide(s.data(), 4, DataType::kInt8, 3);
  EXPECT_EQ(s, (std::vector<int8_t>{33, -33, 42, -42}));

  std::vector<uint8_t> u = {255, 7, 1};
  host_divide(u.data(), 2, DataType::kUint8, 2);
  EXPECT_EQ(u, (std::vector<uint8_t>{127, 3, 1}));

  std::vector<uint64_t> w = {0xffffffffffffffffull};
  host_divide(w.data(), 1, DataType::kUint64, 5);
  EXPECT_EQ(w[0], 0x3333333333333333ull);

  std::vector<int64_t> x = {-9};
  host_divide(x.data(), 1, DataType::kInt64, 1);
  EXPECT_EQ(x[0], -9);
}

TEST(HostDivide, EightBitIntegersWithManyRanks) {
  // The divisor is the rank count, which need not fit in the element type: the
  // average of int8 values over 128 or more ranks has magnitude below 1 or equal to 1.
  std::vector<int8_t> s = {-100, 100, 127, -128};
  host_divide(s.data(), 4, DataType::kInt8, 200);
  EXPECT_EQ(s, (std::vector<int8_t>{0, 0, 0, 0}));

  std::vector<int8_t> m = {-128, 127};
  host_divide(m.data(), 2, DataType::kInt8, 128);
  EXPECT_EQ(m, (std::vector<int8_t>{-1, 0}));

  std::vector<uint8_t> u = {255, 200};
  host_divide(u.data(), 2, DataType::kUint8, 300);
  EXPECT_EQ(u, (std::vector<uint8_t>{0, 0}));
}

TEST(Pattern, Int8AverageOverManyRanksIsTheTruncatedMean) {
  // With 300 ranks the wrapped int8 sum (|sum| <= 128) divided by 300 is always 0.
  const PatternSpec spec{DataType::kInt8, ReduceOp::kAvg, 0, 300};
  int nonzero = 0;
  for (uint64_t i = 0; i < 64; ++i) nonzero += expected_value(spec, kAllRanks, i) != 0 ? 1 : 0;
  EXPECT_EQ(nonzero, 0);
}

}  // namespace

// The pattern is pinned: a digest of what host_fill writes and of the expected
// reductions, per (type, operator, ranks). Recorded anew when the pattern went to one
// hash per 16-byte chunk (coll/pattern_math.h, shared with the GPU kernels, which then
// write at the memory's speed). A change here changes what every verification of
// every backend expects.
// One hash per 16 bytes: the lanes of a chunk are the chunk hash's bits, lane 0 lowest,
// 16 / size lanes for every type; the GPU kernels generate a chunk at a time from these.
TEST(Pattern, OneHashPerSixteenByteChunkCutIntoLanes) {
  for (DataType t : {DataType::kInt8, DataType::kUint8, DataType::kInt32, DataType::kUint32, DataType::kInt64,
                     DataType::kUint64, DataType::kHalf, DataType::kBfloat16, DataType::kFloat, DataType::kDouble}) {
    const pattern_math::Params p = pattern_math::params_for(t, std::nullopt, 1, 4);
    EXPECT_EQ(p.elem_bytes, element_size(t));
    EXPECT_EQ(1u << p.lane_shift, 16 / element_size(t)) << name(t);
  }
  const pattern_math::ChunkBits b{0x0123456789abcdefull, 0xfedcba9876543210ull};
  EXPECT_EQ(pattern_math::lane_bits(b, 0, 1), 0xefu);
  EXPECT_EQ(pattern_math::lane_bits(b, 7, 1), 0x01u);
  EXPECT_EQ(pattern_math::lane_bits(b, 8, 1), 0x10u);
  EXPECT_EQ(pattern_math::lane_bits(b, 15, 1), 0xfeu);
  EXPECT_EQ(pattern_math::lane_bits(b, 1, 2), 0x89abu);
  EXPECT_EQ(pattern_math::lane_bits(b, 5, 2), 0x7654u);
  EXPECT_EQ(pattern_math::lane_bits(b, 1, 4), 0x01234567u);
  EXPECT_EQ(pattern_math::lane_bits(b, 2, 4), 0x76543210u);
  EXPECT_EQ(pattern_math::lane_bits(b, 1, 8), 0xfedcba9876543210ull);
  // Wide integers carry every bit of their lane; one chunk's int8 lanes are its 16 bytes.
  const pattern_math::Params p8 = pattern_math::params_for(DataType::kUint8, std::nullopt, 9, 2);
  const pattern_math::ChunkBits c = pattern_math::chunk_bits(pattern_math::rank_key(9, 1), 5);
  for (unsigned j = 0; j < 16; ++j) {
    const uint64_t word = j < 8 ? c.lo : c.hi;
    EXPECT_EQ(pattern_math::number(p8, pattern_math::rank_key(9, 1), 1, 5 * 16 + j), (word >> (8 * (j % 8))) & 0xff);
  }
  // The kernels' word-at-a-time bytes equal the lanes one by one, for every kind but products.
  std::mt19937_64 rng(3);
  for (int i = 0; i < 2000; ++i) {
    const pattern_math::ChunkBits r{rng(), rng()};
    for (bool is_signed : {false, true}) {
      const DataType t = is_signed ? DataType::kInt8 : DataType::kUint8;
      const auto sum = pattern_math::byte_lanes<pattern_math::Kind::kSum>(r, is_signed);
      const auto wide = pattern_math::byte_lanes<pattern_math::Kind::kWide>(r, is_signed);
      const auto ps = pattern_math::params_for(t, ReduceOp::kSum, 1, 4);
      const auto pw = pattern_math::params_for(t, std::nullopt, 1, 4);
      for (unsigned j = 0; j < 16; ++j) {
        const uint64_t bits = pattern_math::lane_bits(r, j, 1);
        EXPECT_EQ(pattern_math::lane_bits(sum, j, 1),
                  static_cast<uint8_t>(pattern_math::lane_number<pattern_math::Kind::kSum>(ps, bits, 0, j)));
        EXPECT_EQ(pattern_math::lane_bits(wide, j, 1),
                  static_cast<uint8_t>(pattern_math::lane_number<pattern_math::Kind::kWide>(pw, bits, 0, j)));
      }
    }
    // The verify kernel's count of differing bytes.
    const uint64_t a = rng();
    uint64_t changed = a;
    int planted = 0;
    for (int k = 0; k < 8; ++k) {
      if (rng() & 1) {
        changed ^= (static_cast<uint64_t>(1 + rng() % 255)) << (8 * k);
        ++planted;
      }
    }
    EXPECT_EQ(std::popcount(pattern_math::differing_bytes_mask(a, changed)), planted);
  }
  // A product's special rank is spread evenly over the ranks.
  std::vector<int> hits(7, 0);
  for (uint64_t i = 0; i < 70000; ++i) ++hits[pattern_math::special_rank(0x1234, i, 7)];
  for (int h : hits) EXPECT_NEAR(h, 10000, 500);
}

// A product's special lanes: in each group of 16 indexes, one rank per index (the mask of
// every rank together covers the group once), that index's special_rank; and the
// kernels' word-at-a-time 1-byte products equal product_lane lane for lane.
TEST(Pattern, ProductSpecialLanes) {
  for (int n : {1, 2, 3, 5, 7, 15, 16, 17, 300}) {
    const pattern_math::Params p = pattern_math::params_for(DataType::kInt8, ReduceOp::kProd, 0x77, n);
    for (uint64_t g = 0; g < 200; ++g) {
      const uint32_t bits = pattern_math::special_group_bits(p.special_key, g * 16);
      uint32_t covered = 0;
      for (int r = 0; r < n; ++r) {
        const uint32_t lanes = pattern_math::special_lanes(bits, r, p.nranks, p.special_period);
        ASSERT_EQ(covered & lanes, 0u) << "n " << n << " group " << g << " rank " << r;
        covered |= lanes;
        for (unsigned l = 0; l < 16; ++l) {
          if ((lanes >> l) & 1) {
            ASSERT_EQ(pattern_math::special_rank(p.special_key, g * 16 + l, p.nranks), static_cast<uint64_t>(r));
          }
        }
      }
      ASSERT_EQ(covered, 0xffffu) << "n " << n << " group " << g;
    }
  }
  std::mt19937_64 rng(5);
  for (int i = 0; i < 2000; ++i) {
    const pattern_math::ChunkBits r{rng(), rng()};
    const auto special = static_cast<uint32_t>(rng() & 0xffff);
    for (bool is_signed : {false, true}) {
      const auto p = pattern_math::params_for(is_signed ? DataType::kInt8 : DataType::kUint8, ReduceOp::kProd, 1, 4);
      const pattern_math::ChunkBits v = pattern_math::product_byte_lanes(r, special, is_signed);
      for (unsigned j = 0; j < 16; ++j) {
        const int64_t want =
            pattern_math::product_value(p, ((special >> j) & 1) != 0, pattern_math::lane_bits(r, j, 1));
        ASSERT_EQ(pattern_math::lane_bits(v, j, 1), static_cast<uint8_t>(want)) << "lane " << j;
      }
    }
  }
}

// host_fill and host_count_wrong walk whole 16-byte chunks, one hash each, and the
// partial chunks at a segment's two ends element by element: at index bases and counts
// that start and end mid-chunk, the filled values are pattern_value's (one number() per
// element), a reduction of them verifies, and one changed element is counted once.
template <typename T>
void check_chunk_walk(DataType t, std::optional<ReduceOp> op, int n, uint64_t base, size_t count) {
  const std::string where = describe(t, op, n) + " base " + std::to_string(base) + " count " + std::to_string(count);
  const PatternSpec spec{t, op, 0x5eed, n};
  Buffer<T> buf(count + 2);
  const Segment seg{2, count, n - 1, base};
  host_fill(buf.data(), spec, std::span<const Segment>(&seg, 1));
  for (size_t i = 0; i < count; ++i) {
    ASSERT_EQ(as_double(buf[2 + i]), pattern_value(spec, n - 1, base + i)) << where << " element " << i;
  }
  EXPECT_EQ(host_count_wrong(buf.data(), spec, std::span<const Segment>(&seg, 1)), 0u) << where;
  if (!op) return;
  std::vector<int> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  Buffer<T> red = reduce_in_order(*op, rank_inputs<T>(spec, count, base), order);
  if (*op == ReduceOp::kAvg) host_divide(red.data(), count, t, n);
  const Segment all{0, count, kAllRanks, base};
  EXPECT_EQ(host_count_wrong(red.data(), spec, std::span<const Segment>(&all, 1)), 0u) << where;
  unsigned char* at = reinterpret_cast<unsigned char*>(red.data() + count / 2);
  at[sizeof(T) - 1] ^= 0x40;  // the top byte: beyond avg's 2 ulp
  EXPECT_EQ(host_count_wrong(red.data(), spec, std::span<const Segment>(&all, 1)), 1u) << where;
}

TEST(Pattern, ChunkWalksEqualElementByElement) {
  const std::pair<uint64_t, size_t> spans[] = {{0, 1}, {3, 5}, {7, 40}, {16, 33}, {1, 15}, {5, 64}, {31, 2}};
  std::vector<std::optional<ReduceOp>> ops = {std::nullopt};
  for (ReduceOp op : kAllReduceOps) ops.push_back(op);
  for (DataType t : kAllDataTypes) {
    for (const std::optional<ReduceOp>& op : ops) {
      for (int n : {1, 3, 5}) {
        for (const auto& [base, count] : spans) {
          visit_data_type(t, [&](auto tag) { check_chunk_walk<decltype(tag)>(t, op, n, base, count); });
        }
      }
    }
  }
}

TEST(Pattern, PinnedDigests) {
  struct Golden {
    int dtype;
    int op;  // -1: no operator
    int nranks;
    uint64_t digest;
  };
  const Golden golden[] = {
      {0, -1, 1, 0xdd4eea90683c2ae3ull},   {0, -1, 3, 0xc9671deb0774f58full},  {0, -1, 8, 0x71cce4c96c5a3d9aull},
      {0, -1, 300, 0xb13cd69564f4271cull}, {0, 0, 1, 0x63e515d958052583ull},   {0, 0, 3, 0x7b4898d1140419ffull},
      {0, 0, 8, 0xe3e5c02ea3cbcbdaull},    {0, 0, 300, 0x291953023d8d5d0cull}, {0, 1, 1, 0xde7e023e869a98a7ull},
      {0, 1, 3, 0x04b07f4c0fe69cc0ull},    {0, 1, 8, 0x7ccb53ac2a92dc43ull},   {0, 1, 300, 0x3b915d0dc9987514ull},
      {0, 2, 1, 0x7506c88b1dee1ae3ull},    {0, 2, 3, 0x7e8c352bf2d4458full},   {0, 2, 8, 0x6db603e9988fe59aull},
      {0, 2, 300, 0xa3adff2fba79df1cull},  {0, 3, 1, 0x7506c88b1dee1ae3ull},   {0, 3, 3, 0x33d5352bf2d4458full},
      {0, 3, 8, 0x4fa683e9988fe59aull},    {0, 3, 300, 0x6621ff2fba79df1cull}, {0, 4, 1, 0x63e515d958052583ull},
      {0, 4, 3, 0x3c6698d1140419ffull},    {0, 4, 8, 0x6ca9c02ea3cbcbdaull},   {0, 4, 300, 0xf9bf53023d8d5d0cull},
      {1, -1, 1, 0xdd4eea90683c2ae3ull},   {1, -1, 3, 0xc9671deb0774f58full},  {1, -1, 8, 0x71cce4c96c5a3d9aull},
      {1, -1, 300, 0xb13cd69564f4271cull}, {1, 0, 1, 0x502bb29f2765d323ull},   {1, 0, 3, 0xd646a968b5f2271full},
      {1, 0, 8, 0x1fcd53a25caf1d0aull},    {1, 0, 300, 0x158ad19227611d6cull}, {1, 1, 1, 0xe7f3bbdba26b8cd7ull},
      {1, 1, 3, 0xf8cb88d9d1155fc4ull},    {1, 1, 8, 0x592161849c630cf9ull},   {1, 1, 300, 0x1723691b10b61266ull},
      {1, 2, 1, 0x71cac88b1dee1ae3ull},    {1, 2, 3, 0x79dbf52bf2d4458full},   {1, 2, 8, 0x619103e9988fe59aull},
      {1, 2, 300, 0x74937f2fba79df1cull},  {1, 3, 1, 0x71cac88b1dee1ae3ull},   {1, 3, 3, 0xd3c3752bf2d4458full},
      {1, 3, 8, 0xc7b5c3e9988fe59aull},    {1, 3, 300, 0xed0fbf2fba79df1cull}, {1, 4, 1, 0x502bb29f2765d323ull},
      {1, 4, 3, 0x7913a968b5f2271full},    {1, 4, 8, 0x2c9fd3a25caf1d0aull},   {1, 4, 300, 0xd425119227611d6cull},
      {2, -1, 1, 0x8b9bc14c43ae0777ull},   {2, -1, 3, 0x8863680f07a822adull},  {2, -1, 8, 0x160fd4995574c8ffull},
      {2, -1, 300, 0x838b2ac5006dabc5ull}, {2, 0, 1, 0x08b77fa6869dc65bull},   {2, 0, 3, 0x04ba2e8edca7f908ull},
      {2, 0, 8, 0x7fdf83ffab9dea03ull},    {2, 0, 300, 0x481eb89b4e72223aull}, {2, 1, 1, 0x2e349f28864ac5cbull},
      {2, 1, 3, 0xd759a768beed7466ull},    {2, 1, 8, 0xf0beddf068dea910ull},   {2, 1, 300, 0xaefe55e92fc1b3c2ull},
      {2, 2, 1, 0xcb65f73e49cc0f77ull},    {2, 2, 3, 0x8b0f9979e58bdaadull},   {2, 2, 8, 0xb1ae3b096a2f10ffull},
      {2, 2, 300, 0x2ec7d6b1a5ca23c5ull},  {2, 3, 1, 0xcb65f73e49cc0f77ull},   {2, 3, 3, 0xdf198886f50bdaadull},
      {2, 3, 8, 0xc07062ab0c2f10ffull},    {2, 3, 300, 0xdaae4909704a23c5ull}, {2, 4, 1, 0x08b77fa6869dc65bull},
      {2, 4, 3, 0x3da82e8edca7f908ull},    {2, 4, 8, 0xd0ee83ffab9dea03ull},   {2, 4, 300, 0x0a3e189b4e72223aull},
      {3, -1, 1, 0x8b9bc14c43ae0777ull},   {3, -1, 3, 0x8863680f07a822adull},  {3, -1, 8, 0x160fd4995574c8ffull},
      {3, -1, 300, 0x838b2ac5006dabc5ull}, {3, 0, 1, 0x87eb64e54dcf7b83ull},   {3, 0, 3, 0x9e9fcf36eb962cc0ull},
      {3, 0, 8, 0x65173a0ec9edf5d3ull},    {3, 0, 300, 0xb0a9b00453740902ull}, {3, 1, 1, 0xbedbb70302412b83ull},
      {3, 1, 3, 0xc06e4b293ad75703ull},    {3, 1, 8, 0x6e6bc1b2ad097792ull},   {3, 1, 300, 0x715b7c8c6dcd6990ull},
      {3, 2, 1, 0x5ca6e173cd4c0f77ull},    {3, 2, 3, 0xa6ecafe57e4bdaadull},   {3, 2, 8, 0x2935178bffaf10ffull},
      {3, 2, 300, 0x8b2f3da864ca23c5ull},  {3, 3, 1, 0x5ca6e173cd4c0f77ull},   {3, 3, 3, 0x02f87162db0bdaadull},
      {3, 3, 8, 0x06844623f26f10ffull},    {3, 3, 300, 0x553f7db3580a23c5ull}, {3, 4, 1, 0x87eb64e54dcf7b83ull},
      {3, 4, 3, 0x4740cf36eb962cc0ull},    {3, 4, 8, 0x7aa0ba0ec9edf5d3ull},   {3, 4, 300, 0xc5e8280453740902ull},
      {4, -1, 1, 0xfb4347d744a519b3ull},   {4, -1, 3, 0x9c8a2e2b42a9de66ull},  {4, -1, 8, 0xb14f72eaec6e57f2ull},
      {4, -1, 300, 0x1cc96807b4525cb2ull}, {4, 0, 1, 0xbf905c73383b7713ull},   {4, 0, 3, 0x6909d776a64ff591ull},
      {4, 0, 8, 0x08c937c5d356714cull},    {4, 0, 300, 0x7d2d3bf91d70f000ull}, {4, 1, 1, 0xf81e617153ee7693ull},
      {4, 1, 3, 0x55e821a501c06faaull},    {4, 1, 8, 0x305e4bbf6265df73ull},   {4, 1, 300, 0x30821c845b9f3719ull},
      {4, 2, 1, 0xca390ac25082c1b7ull},    {4, 2, 3, 0x1a211c0a054bb2d2ull},   {4, 2, 8, 0x5f2d9be27375a66eull},
      {4, 2, 300, 0x89f3084d6de6e132ull},  {4, 3, 1, 0xca390ac25082c1b7ull},   {4, 3, 3, 0xc4319d07f9736386ull},
      {4, 3, 8, 0x346efb958a7feb72ull},    {4, 3, 300, 0xcf4fb7a0b94aae0eull}, {4, 4, 1, 0xbf905c73383b7713ull},
      {4, 4, 3, 0x73d5d776a64ff591ull},    {4, 4, 8, 0xe42337c5d356714cull},   {4, 4, 300, 0xfb789bf91d70f000ull},
      {5, -1, 1, 0xfb4347d744a519b3ull},   {5, -1, 3, 0x9c8a2e2b42a9de66ull},  {5, -1, 8, 0xb14f72eaec6e57f2ull},
      {5, -1, 300, 0x1cc96807b4525cb2ull}, {5, 0, 1, 0x569a7683ad34c583ull},   {5, 0, 3, 0x3d27ab6c343e2ea1ull},
      {5, 0, 8, 0x797c8cc781a1a3ebull},    {5, 0, 300, 0xce22e17812029900ull}, {5, 1, 1, 0xc444bb9934440583ull},
      {5, 1, 3, 0x7ca11129e5f1a2c3ull},    {5, 1, 8, 0xb566d6aa8b58bfa3ull},   {5, 1, 300, 0x5766b6fb8fb2af00ull},
      {5, 2, 1, 0x6cb49579bff40a9bull},    {5, 2, 3, 0x3c9d259c0b06d0eaull},   {5, 2, 8, 0xb6fc048e88005dbeull},
      {5, 2, 300, 0xbff4c33e96d141feull},  {5, 3, 1, 0x6cb49579bff40a9bull},   {5, 3, 3, 0x59c780b3d4015e82ull},
      {5, 3, 8, 0x60d898885662892eull},    {5, 3, 300, 0x59d724f6c58647c2ull}, {5, 4, 1, 0x569a7683ad34c583ull},
      {5, 4, 3, 0x278dab6c343e2ea1ull},    {5, 4, 8, 0xfb200cc781a1a3ebull},   {5, 4, 300, 0xa93b3d7812029900ull},
      {6, -1, 1, 0xda2e27c2e4492e1bull},   {6, -1, 3, 0x1e97b7e3cd917f8eull},  {6, -1, 8, 0xfb70e3d3b03d801bull},
      {6, -1, 300, 0x98130c11f3dc8d81ull}, {6, 0, 1, 0x95b7c382f0112c23ull},   {6, 0, 3, 0x4849c2e35219a05aull},
      {6, 0, 8, 0xb8905a5816b07999ull},    {6, 0, 300, 0xf7575fd43d0a4d59ull}, {6, 1, 1, 0xd21583d04eff3a43ull},
      {6, 1, 3, 0x97452e51e18832d3ull},    {6, 1, 8, 0x2ad2ed0ad39fd0e9ull},   {6, 1, 300, 0x7d6a6ffe8c71920dull},
      {6, 2, 1, 0x47006c3627ca2e1bull},    {6, 2, 3, 0xe5148d6d6904178eull},   {6, 2, 8, 0xe00cd7ee3a4e801bull},
      {6, 2, 300, 0x0fde0fc33624bd81ull},  {6, 3, 1, 0x47006c3627ca2e1bull},   {6, 3, 3, 0x9bc01d6d6904178eull},
      {6, 3, 8, 0x2a7477ee3a4e801bull},    {6, 3, 300, 0x0c25cfc33624bd81ull}, {6, 4, 1, 0x95b7c382f0112c23ull},
      {6, 4, 3, 0xecc98ae35219a05aull},    {6, 4, 8, 0x91b05a5816b07999ull},   {6, 4, 300, 0xc165ffd43d0a4d59ull},
      {7, -1, 1, 0xb7efa9a7909ff94bull},   {7, -1, 3, 0x2599c5c5236bfcadull},  {7, -1, 8, 0x6cbd886e319bd13cull},
      {7, -1, 300, 0xd18f9f1ab7dbc394ull}, {7, 0, 1, 0x366e6f74c1571cb3ull},   {7, 0, 3, 0xb8ef768a2745373dull},
      {7, 0, 8, 0x41c4a404b157a75bull},    {7, 0, 300, 0x052854a03cb13873ull}, {7, 1, 1, 0x9665f2cbbfbc9783ull},
      {7, 1, 3, 0xe66bd013eef980fbull},    {7, 1, 8, 0x35ffad38f2b3c8c3ull},   {7, 1, 300, 0x49ca255e958235b2ull},
      {7, 2, 1, 0xe93d9611ac4f994bull},    {7, 2, 3, 0xd89c8575bcfaacadull},   {7, 2, 8, 0x7029c799c76cf93cull},
      {7, 2, 300, 0xe451c89365efab94ull},  {7, 3, 1, 0xe93d9611ac4f994bull},   {7, 3, 3, 0x31874575bcfaacadull},
      {7, 3, 8, 0x2df34799c76cf93cull},    {7, 3, 300, 0x06c8889365efab94ull}, {7, 4, 1, 0x366e6f74c1571cb3ull},
      {7, 4, 3, 0x0f19f68a2745373dull},    {7, 4, 8, 0x3884a404b157a75bull},   {7, 4, 300, 0xcece54a03cb13873ull},
      {8, -1, 1, 0x46972c803459fb8bull},   {8, -1, 3, 0xf943b55bbb578f72ull},  {8, -1, 8, 0xce38b667fab147b2ull},
      {8, -1, 300, 0x9e60c33c4d385547ull}, {8, 0, 1, 0x36c77e1d105daa03ull},   {8, 0, 3, 0xe3a7d7f6ac9b57b0ull},
      {8, 0, 8, 0xa62b9378de3a22b3ull},    {8, 0, 300, 0x81d6728c143b839dull}, {8, 1, 1, 0x03135ca11f44cf83ull},
      {8, 1, 3, 0x568b0ae5e1c54133ull},    {8, 1, 8, 0xfdbff3e3a1054e43ull},   {8, 1, 300, 0xd4f1a5579f7a02daull},
      {8, 2, 1, 0x251a0c30cfeee38bull},    {8, 2, 3, 0x79dbdd71f3d9af72ull},   {8, 2, 8, 0x61a3f439517567b2ull},
      {8, 2, 300, 0x4f2545a221131d47ull},  {8, 3, 1, 0x251a0c30cfeee38bull},   {8, 3, 3, 0x349add71f3d9af72ull},
      {8, 3, 8, 0x2af9b439517567b2ull},    {8, 3, 300, 0x14f5b5a221131d47ull}, {8, 4, 1, 0x36c77e1d105daa03ull},
      {8, 4, 3, 0x3d1b408cac9b57b0ull},    {8, 4, 8, 0x7a2b9378de3a22b3ull},   {8, 4, 300, 0x66ca6561d43b839dull},
      {9, -1, 1, 0xc76c39df040f583bull},   {9, -1, 3, 0x530c88e7f5d97600ull},  {9, -1, 8, 0x36bccfb28b1586adull},
      {9, -1, 300, 0xab7095513fd9d66cull}, {9, 0, 1, 0x469100599c04bb03ull},   {9, 0, 3, 0xb4ec86f816afa99bull},
      {9, 0, 8, 0xdf8b306e90052cb7ull},    {9, 0, 300, 0x25629301533de06eull}, {9, 1, 1, 0xd2f1ec468b8dd183ull},
      {9, 1, 3, 0x6ccab89fbcadf423ull},    {9, 1, 8, 0x4e94d4d0ad7fdd13ull},   {9, 1, 300, 0xbb66a1f5e351ee1aull},
      {9, 2, 1, 0x65b00a51d016383bull},    {9, 2, 3, 0x57b9cd2e1fd87e00ull},   {9, 2, 8, 0xd64a717ab473f6adull},
      {9, 2, 300, 0xf702170727b43e6cull},  {9, 3, 1, 0x65b00a51d016383bull},   {9, 3, 3, 0xe90aed2e1fd87e00ull},
      {9, 3, 8, 0x2e15117ab473f6adull},    {9, 3, 300, 0xbecda70727b43e6cull}, {9, 4, 1, 0x469100599c04bb03ull},
      {9, 4, 3, 0xce40ccf8635b9e7bull},    {9, 4, 8, 0xafcb306e90052cb7ull},   {9, 4, 300, 0x061f542a1a81934aull},
  };
  for (const Golden& g : golden) {
    PatternSpec s;
    s.dtype = static_cast<DataType>(g.dtype);
    s.seed = 0x5eed;
    s.nranks = g.nranks;
    if (g.op >= 0) s.op = static_cast<ReduceOp>(g.op);
    uint64_t h = 1469598103934665603ull;
    for (int r : {0, g.nranks - 1}) {
      std::vector<unsigned char> buf(4096 * 8);
      Segment seg{0, 4096, r, 1000};
      host_fill(buf.data(), s, std::span<const Segment>(&seg, 1));
      for (unsigned char c : buf) {
        h ^= c;
        h *= 1099511628211ull;
      }
      if (g.op >= 0) {
        for (uint64_t i = 0; i < 512; ++i) {
          double v = expected_value(s, kAllRanks, 77 + i);
          uint64_t b = 0;
          std::memcpy(&b, &v, 8);
          h ^= b;
          h *= 1099511628211ull;
        }
      }
    }
    EXPECT_EQ(h, g.digest) << "dtype " << g.dtype << " op " << g.op << " ranks " << g.nranks;
  }
}

}  // namespace fabscope
