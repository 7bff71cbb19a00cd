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
}  // namespace fabscope
