// The verification pattern: reducing host_fill's per-rank inputs in any order, with
// the element type's own arithmetic, must give what host_count_wrong expects.
#include "coll/pattern.h"

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
// reductions, per (type, operator, ranks), recorded before the per-element math moved
// to coll/pattern_math.h (shared with the GPU kernels). A change here changes what
// every verification of every backend expects.
TEST(Pattern, PinnedDigests) {
  struct Golden {
    int dtype;
    int op;  // -1: no operator
    int nranks;
    uint64_t digest;
  };
  const Golden golden[] = {
      {0, -1, 1, 0x775f61d21ad687bbull},   {0, -1, 3, 0x639f6a2e67f5ba5aull},  {0, -1, 8, 0x39dadb4d11631c14ull},
      {0, -1, 300, 0x453b34cc00b4e68eull}, {0, 0, 1, 0x9145bb8f442c0e9bull},   {0, 0, 3, 0xb87db6f33c13ad8aull},
      {0, 0, 8, 0x1b223503d5401344ull},    {0, 0, 300, 0xc0cf811fc83da2beull}, {0, 1, 1, 0x5bb8dbeb10735d83ull},
      {0, 1, 3, 0x2f4e28affcb3c0c3ull},    {0, 1, 8, 0x6ec667bdf23c0949ull},   {0, 1, 300, 0xf0d17c59c0d510fcull},
      {0, 2, 1, 0xd388cc8290c267bbull},    {0, 2, 3, 0xe3af02bb4934925aull},   {0, 2, 8, 0x9c71b92d6c23c414ull},
      {0, 2, 300, 0xb06d4e7e69bd5e8eull},  {0, 3, 1, 0xd388cc8290c267bbull},   {0, 3, 3, 0xb81d02bb4934925aull},
      {0, 3, 8, 0x6751392d6c23c414ull},    {0, 3, 300, 0xe3464e7e69bd5e8eull}, {0, 4, 1, 0x9145bb8f442c0e9bull},
      {0, 4, 3, 0x0d8bb6f33c13ad8aull},    {0, 4, 8, 0xf3973503d5401344ull},   {0, 4, 300, 0xf218011fc83da2beull},
      {1, -1, 1, 0x775f61d21ad687bbull},   {1, -1, 3, 0x639f6a2e67f5ba5aull},  {1, -1, 8, 0x39dadb4d11631c14ull},
      {1, -1, 300, 0x453b34cc00b4e68eull}, {1, 0, 1, 0x57ca4a66e17ac71bull},   {1, 0, 3, 0xbef8b2d73704d73aull},
      {1, 0, 8, 0x8c7eef68396c1624ull},    {1, 0, 300, 0xa17a343654d2eabeull}, {1, 1, 1, 0xc466b7b1afa5688bull},
      {1, 1, 3, 0x1b1d71209270e305ull},    {1, 1, 8, 0x800d541d074712c7ull},   {1, 1, 300, 0xab570b6c4b8d80ecull},
      {1, 2, 1, 0x8096cc8290c267bbull},    {1, 2, 3, 0x9c9cc2bb4934925aull},   {1, 2, 8, 0xd9abb92d6c23c414ull},
      {1, 2, 300, 0xe0234e7e69bd5e8eull},  {1, 3, 1, 0x8096cc8290c267bbull},   {1, 3, 3, 0x420882bb4934925aull},
      {1, 3, 8, 0xc4f8f92d6c23c414ull},    {1, 3, 300, 0x7bf7ce7e69bd5e8eull}, {1, 4, 1, 0x57ca4a66e17ac71bull},
      {1, 4, 3, 0xb8f2b2d73704d73aull},    {1, 4, 8, 0x43056f68396c1624ull},   {1, 4, 300, 0xbd24b43654d2eabeull},
      {2, -1, 1, 0x8d64c9caffcb2b03ull},   {2, -1, 3, 0xdfa634f8595f4aa1ull},  {2, -1, 8, 0xf91283a9d7b51b28ull},
      {2, -1, 300, 0x47f075bb79e5f0faull}, {2, 0, 1, 0xbcf476384f90f223ull},   {2, 0, 3, 0x8e36620470f61984ull},
      {2, 0, 8, 0xed3012ad501d9977ull},    {2, 0, 300, 0x7829e6e4bfaaff70ull}, {2, 1, 1, 0x0ac54ac06df02b9bull},
      {2, 1, 3, 0x9b4c1cdf454b8794ull},    {2, 1, 8, 0x543166e9207f9266ull},   {2, 1, 300, 0x9d666397bbd25a1dull},
      {2, 2, 1, 0x8039ff5e3c6bd303ull},    {2, 2, 3, 0xc6ee25bb6c38e2a1ull},   {2, 2, 8, 0x569627efc520eb28ull},
      {2, 2, 300, 0xa691b5de5a2450faull},  {2, 3, 1, 0x8039ff5e3c6bd303ull},   {2, 3, 3, 0x07bfdc61a8b8e2a1ull},
      {2, 3, 8, 0xfef85516ee20eb28ull},    {2, 3, 300, 0x5314c234622450faull}, {2, 4, 1, 0xbcf476384f90f223ull},
      {2, 4, 3, 0xd614620470f61984ull},    {2, 4, 8, 0x909c12ad501d9977ull},   {2, 4, 300, 0x534c26e4bfaaff70ull},
      {3, -1, 1, 0x8d64c9caffcb2b03ull},   {3, -1, 3, 0xdfa634f8595f4aa1ull},  {3, -1, 8, 0xf91283a9d7b51b28ull},
      {3, -1, 300, 0x47f075bb79e5f0faull}, {3, 0, 1, 0x3262d2bb708bd9c3ull},   {3, 0, 3, 0x3cd95a525f923354ull},
      {3, 0, 8, 0xce24f0168325728cull},    {3, 0, 300, 0x28af766f60f42a10ull}, {3, 1, 1, 0x6cfa4d164d7bb7c3ull},
      {3, 1, 3, 0x3568198f84da9421ull},    {3, 1, 8, 0x28e35bcfdd594d23ull},   {3, 1, 300, 0x8bb0866007f8dc32ull},
      {3, 2, 1, 0x4f114b6533abd303ull},    {3, 2, 3, 0xae7bdb24a4f8e2a1ull},   {3, 2, 8, 0xc574f6ab82a0eb28ull},
      {3, 2, 300, 0xf473907a7da450faull},  {3, 3, 1, 0x4f114b6533abd303ull},   {3, 3, 3, 0x7904a3162eb8e2a1ull},
      {3, 3, 8, 0x35b186d8ffa0eb28ull},    {3, 3, 300, 0x001a3ab03f6450faull}, {3, 4, 1, 0x3262d2bb708bd9c3ull},
      {3, 4, 3, 0xea075a525f923354ull},    {3, 4, 8, 0x498670168325728cull},   {3, 4, 300, 0x9cbb826f60f42a10ull},
      {4, -1, 1, 0x9358ce89da8e81abull},   {4, -1, 3, 0x677292411da3cac1ull},  {4, -1, 8, 0x45629bc67b4d34adull},
      {4, -1, 300, 0x7baef65e37af2b01ull}, {4, 0, 1, 0x5c4590f101bc14e3ull},   {4, 0, 3, 0x88d80367648920f4ull},
      {4, 0, 8, 0xd7238c32d091035bull},    {4, 0, 300, 0x515d89cb20a56b80ull}, {4, 1, 1, 0x2d4c60c829519633ull},
      {4, 1, 3, 0xce3f18f19989c968ull},    {4, 1, 8, 0x611d4c03d8539a0aull},   {4, 1, 300, 0xcb42c9fb52663879ull},
      {4, 2, 1, 0xa0321059db31939full},    {4, 2, 3, 0x840e44b3c6660919ull},   {4, 2, 8, 0x06c1cb6d3a86d751ull},
      {4, 2, 300, 0x28f3fb8fe79252f5ull},  {4, 3, 1, 0xa0321059db31939full},   {4, 3, 3, 0x0a236ae6adc8dc71ull},
      {4, 3, 8, 0x3af1571eebc7a38dull},    {4, 3, 300, 0xff9702bab0c577ddull}, {4, 4, 1, 0x5c4590f101bc14e3ull},
      {4, 4, 3, 0x66200367648920f4ull},    {4, 4, 8, 0xec6e8c32d091035bull},   {4, 4, 300, 0xc70929cb20a56b80ull},
      {5, -1, 1, 0x9358ce89da8e81abull},   {5, -1, 3, 0x677292411da3cac1ull},  {5, -1, 8, 0x45629bc67b4d34adull},
      {5, -1, 300, 0x7baef65e37af2b01ull}, {5, 0, 1, 0x1d6db932c8baf403ull},   {5, 0, 3, 0xb746fbc019e20e24ull},
      {5, 0, 8, 0x7a966dd5926f818cull},    {5, 0, 300, 0x28341143291e51a0ull}, {5, 1, 1, 0x130f854913c9a003ull},
      {5, 1, 3, 0xb02e82d1ffaa7cc1ull},    {5, 1, 8, 0x2e33c71994a834c3ull},   {5, 1, 300, 0x0319c8825f0ff7e2ull},
      {5, 2, 1, 0xb695d3e2d07c827bull},    {5, 2, 3, 0xda7c89f04b70e78dull},   {5, 2, 8, 0xcc58f2dca6d30565ull},
      {5, 2, 300, 0x3b4e563c01b202bdull},  {5, 3, 1, 0xb695d3e2d07c827bull},   {5, 3, 3, 0x4d2d054eb6960045ull},
      {5, 3, 8, 0x20e0cf33f476261dull},    {5, 3, 300, 0x636d85754497c439ull}, {5, 4, 1, 0x1d6db932c8baf403ull},
      {5, 4, 3, 0xa1bdfbc019e20e24ull},    {5, 4, 8, 0xf91d6dd5926f818cull},   {5, 4, 300, 0x0997f143291e51a0ull},
      {6, -1, 1, 0x2be20625ecdc046bull},   {6, -1, 3, 0xf5f8f782ce9c988cull},  {6, -1, 8, 0xe03a188022d20d3dull},
      {6, -1, 300, 0x81595f673c1d3dafull}, {6, 0, 1, 0x3de7dc10973d37e3ull},   {6, 0, 3, 0xfd9aec87c8e92f02ull},
      {6, 0, 8, 0x97c1219a61239e6dull},    {6, 0, 300, 0xa83ea3daf095c5c0ull}, {6, 1, 1, 0x989be01638fa4843ull},
      {6, 1, 3, 0xb6f64fc1539b075dull},    {6, 1, 8, 0x1a9ea4ae6af693c3ull},   {6, 1, 300, 0x42a600cd7da7aa89ull},
      {6, 2, 1, 0xd0bc0b718339d46bull},    {6, 2, 3, 0x532faa38255d708cull},   {6, 2, 8, 0xcdb583409a1a6d3dull},
      {6, 2, 300, 0xfa14de603ccd2dafull},  {6, 3, 1, 0xd0bc0b718339d46bull},   {6, 3, 3, 0xbc5c4a38255d708cull},
      {6, 3, 8, 0xe19df3409a1a6d3dull},    {6, 3, 300, 0xf09dce603ccd2dafull}, {6, 4, 1, 0x3de7dc10973d37e3ull},
      {6, 4, 3, 0x11ed9c87c8e92f02ull},    {6, 4, 8, 0xade1219a61239e6dull},   {6, 4, 300, 0x3e8d5bdaf095c5c0ull},
      {7, -1, 1, 0xd9222bf1154dc47full},   {7, -1, 3, 0xa806976fdd0fa2ceull},  {7, -1, 8, 0xafd976462546d699ull},
      {7, -1, 300, 0xfe641158aac2e4dfull}, {7, 0, 1, 0x93877d950d949093ull},   {7, 0, 3, 0x99dbd845514d6ea2ull},
      {7, 0, 8, 0xf784fd3d9f7a6403ull},    {7, 0, 300, 0xf47448a8401d166aull}, {7, 1, 1, 0x566c5c3ad7ffcf83ull},
      {7, 1, 3, 0xa1e40823d97c3ff2ull},    {7, 1, 8, 0xb91f6b04aaf0c32bull},   {7, 1, 300, 0x54097745c5063e0bull},
      {7, 2, 1, 0x2f17c44ce4fb3c7full},    {7, 2, 3, 0x927f1c916ccd92ceull},   {7, 2, 8, 0x5af651367cb91e99ull},
      {7, 2, 300, 0x6b6e6d47b4335cdfull},  {7, 3, 1, 0x2f17c44ce4fb3c7full},   {7, 3, 3, 0xdddf1c916ccd92ceull},
      {7, 3, 8, 0xcddc51367cb91e99ull},    {7, 3, 300, 0x6a73ad47b4335cdfull}, {7, 4, 1, 0x93877d950d949093ull},
      {7, 4, 3, 0x5539d845514d6ea2ull},    {7, 4, 8, 0xcd04fd3d9f7a6403ull},   {7, 4, 300, 0x32e0c8a8401d166aull},
      {8, -1, 1, 0xcf25ed49b762a813ull},   {8, -1, 3, 0xd578615b54b20d56ull},  {8, -1, 8, 0x7a1b938d89ef44a4ull},
      {8, -1, 300, 0x6f9aa1fd172e9e6full}, {8, 0, 1, 0xee2695eaf1d05863ull},   {8, 0, 3, 0x9733bfeba453919aull},
      {8, 0, 8, 0x43a81de3986747c3ull},    {8, 0, 300, 0x1779048f78f2b25dull}, {8, 1, 1, 0xbec7685d3c3dc383ull},
      {8, 1, 3, 0xf0660693490ce89aull},    {8, 1, 8, 0xfb2ddcb90c50cf93ull},   {8, 1, 300, 0x9dcfee53e933ff93ull},
      {8, 2, 1, 0x486e416802e09813ull},    {8, 2, 3, 0x4c3cf07db0601556ull},   {8, 2, 8, 0xb57f5c5f8ef3bca4ull},
      {8, 2, 300, 0x838b861b71176e6full},  {8, 3, 1, 0x486e416802e09813ull},   {8, 3, 3, 0xffb6907db0601556ull},
      {8, 3, 8, 0x7d1acc5f8ef3bca4ull},    {8, 3, 300, 0xbbaf561b71176e6full}, {8, 4, 1, 0xee2695eaf1d05863ull},
      {8, 4, 3, 0x725a4c09a453919aull},    {8, 4, 8, 0xcce81de3986747c3ull},   {8, 4, 300, 0xb53575c1b8f2b25dull},
      {9, -1, 1, 0xb16817be813062a3ull},   {9, -1, 3, 0x04764dc7c4494e3bull},  {9, -1, 8, 0xd5f44009681bdef5ull},
      {9, -1, 300, 0x97192a328a0cb059ull}, {9, 0, 1, 0x8c01a516ed9c1523ull},   {9, 0, 3, 0xa7710c159c1319beull},
      {9, 0, 8, 0x78bdb80bee3cdbfbull},    {9, 0, 300, 0x5ac4d97aeec39032ull}, {9, 1, 1, 0x4db798ff52dc6d83ull},
      {9, 1, 3, 0x4702646ab1a34232ull},    {9, 1, 8, 0xef40f639feaf8fe3ull},   {9, 1, 300, 0xa7a13629e5c3897bull},
      {9, 2, 1, 0xa6bb054ac7c372a3ull},    {9, 2, 3, 0x5b157fca3d691e3bull},   {9, 2, 8, 0x83bbcc0162357ef5ull},
      {9, 2, 300, 0xaa9e87650b797059ull},  {9, 3, 1, 0xa6bb054ac7c372a3ull},   {9, 3, 3, 0x65601fca3d691e3bull},
      {9, 3, 8, 0x27b9ac0162357ef5ull},    {9, 3, 300, 0x345477650b797059ull}, {9, 4, 1, 0x8c01a516ed9c1523ull},
      {9, 4, 3, 0xbacc89174d0d36eaull},    {9, 4, 8, 0x353db80bee3cdbfbull},   {9, 4, 300, 0xceb60bf85494248aull},
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
