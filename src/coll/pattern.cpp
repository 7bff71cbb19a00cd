#include "coll/pattern.h"

#include "coll/pattern_math.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

namespace fabscope {

namespace {

using pattern_math::rank_key;

// Storage-type traits: how a generated number becomes an element, and back.
template <typename T>
struct TypeOps {
  static constexpr bool kFloat = std::is_floating_point_v<T>;
  static T from_number(int64_t v) { return static_cast<T>(v); }  // modular for integers
  static double to_double(T v) { return static_cast<double>(v); }
  static T from_double(double v) { return static_cast<T>(v); }
};
template <>
struct TypeOps<Half> {
  static constexpr bool kFloat = true;
  static Half from_number(int64_t v) { return float_to_half(static_cast<float>(v)); }
  static double to_double(Half v) { return half_to_float(v); }
  static Half from_double(double v) { return float_to_half(static_cast<float>(v)); }
};
template <>
struct TypeOps<Bfloat16> {
  static constexpr bool kFloat = true;
  static Bfloat16 from_number(int64_t v) { return float_to_bfloat16(static_cast<float>(v)); }
  static double to_double(Bfloat16 v) { return bfloat16_to_float(v); }
  static Bfloat16 from_double(double v) { return float_to_bfloat16(static_cast<float>(v)); }
};

// Generates element values of one type for one spec.
template <typename T>
class Generator {
 public:
  using Ops = TypeOps<T>;
  explicit Generator(const PatternSpec& s)
      : spec_(s), params_(pattern_math::params_for(s.dtype, s.op, s.seed, s.nranks)) {}

  // The generated number for (rank, index), shared with the GPU kernels.
  int64_t number(uint64_t key, int rank, uint64_t index) const {
    return pattern_math::number(params_, key, rank, index);
  }

  T value(uint64_t key, int rank, uint64_t index) const { return Ops::from_number(number(key, rank, index)); }
  uint64_t key(int rank) const { return rank_key(spec_.seed, rank); }

  // The reduction of every rank's value at `index`, with keys precomputed per rank.
  T reduced(const std::vector<uint64_t>& keys, uint64_t index) const {
    const ReduceOp op = *spec_.op;
    if constexpr (Ops::kFloat) {
      pattern_math::FloatFold fold(op);
      for (size_t r = 0; r < keys.size(); ++r) fold.add(Ops::to_double(value(keys[r], static_cast<int>(r), index)));
      T result = Ops::from_double(fold.result());
      if (op == ReduceOp::kAvg) result = divide(result, spec_.nranks);
      return result;
    } else {
      pattern_math::IntFold<T> fold(op);
      for (size_t r = 0; r < keys.size(); ++r) fold.add(value(keys[r], static_cast<int>(r), index));
      T acc = fold.result();
      if (op == ReduceOp::kAvg) acc = divide(acc, spec_.nranks);
      return acc;
    }
  }

  static T divide(T v, int n) {
    if constexpr (std::is_same_v<T, Half>) {
      return Half{pattern_math::divide_half_bits(v.bits, n)};
    } else if constexpr (std::is_same_v<T, Bfloat16>) {
      return Bfloat16{pattern_math::divide_bfloat16_bits(v.bits, n)};
    } else {
      return pattern_math::divide(v, n);
    }
  }

  bool equal(T got, T want) const {
    if constexpr (Ops::kFloat) {
      double g = Ops::to_double(got);
      double w = Ops::to_double(want);
      if (g == w) return true;
      if (spec_.op == ReduceOp::kAvg) {
        return pattern_math::ulp_distance(ordered(got), ordered(want)) <= pattern_math::kAverageUlps;
      }
      return false;
    } else {
      return got == want;
    }
  }

 private:
  static int64_t ordered(T v) {
    if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, Bfloat16>) {
      return pattern_math::ordered_bits16(v.bits);
    } else {
      return pattern_math::ordered(v);
    }
  }

  PatternSpec spec_;
  pattern_math::Params params_;
};

template <typename T>
void fill_typed(void* buffer, const PatternSpec& spec, std::span<const Segment> segments) {
  Generator<T> gen(spec);
  T* out = static_cast<T*>(buffer);
  for (const Segment& s : segments) {
    uint64_t key = gen.key(s.src_rank);
    for (size_t i = 0; i < s.count; ++i) out[s.offset + i] = gen.value(key, s.src_rank, s.index_base + i);
  }
}

template <typename T>
uint64_t count_wrong_typed(const void* buffer, const PatternSpec& spec, std::span<const Segment> segments) {
  Generator<T> gen(spec);
  const T* in = static_cast<const T*>(buffer);
  uint64_t wrong = 0;
  std::vector<uint64_t> keys;
  for (const Segment& s : segments) {
    if (s.src_rank == kAllRanks) {
      if (keys.empty()) {
        for (int r = 0; r < spec.nranks; ++r) keys.push_back(gen.key(r));
      }
      for (size_t i = 0; i < s.count; ++i)
        wrong += gen.equal(in[s.offset + i], gen.reduced(keys, s.index_base + i)) ? 0 : 1;
    } else {
      uint64_t key = gen.key(s.src_rank);
      for (size_t i = 0; i < s.count; ++i) {
        wrong += gen.equal(in[s.offset + i], gen.value(key, s.src_rank, s.index_base + i)) ? 0 : 1;
      }
    }
  }
  return wrong;
}

template <typename T>
void divide_typed(void* buffer, size_t count, int divisor) {
  T* p = static_cast<T*>(buffer);
  for (size_t i = 0; i < count; ++i) p[i] = Generator<T>::divide(p[i], divisor);
}

}  // namespace

void host_fill(void* buffer, const PatternSpec& spec, std::span<const Segment> segments) {
  visit_data_type(spec.dtype, [&](auto tag) { fill_typed<decltype(tag)>(buffer, spec, segments); });
}

uint64_t host_count_wrong(const void* buffer, const PatternSpec& spec, std::span<const Segment> segments) {
  return visit_data_type(spec.dtype,
                         [&](auto tag) { return count_wrong_typed<decltype(tag)>(buffer, spec, segments); });
}

void host_divide(void* buffer, size_t count, DataType dtype, int divisor) {
  visit_data_type(dtype, [&](auto tag) { divide_typed<decltype(tag)>(buffer, count, divisor); });
}

double pattern_value(const PatternSpec& spec, int rank, uint64_t index) {
  return visit_data_type(spec.dtype, [&](auto tag) {
    using T = decltype(tag);
    Generator<T> gen(spec);
    return TypeOps<T>::to_double(gen.value(gen.key(rank), rank, index));
  });
}

double expected_value(const PatternSpec& spec, int src_rank, uint64_t index) {
  if (src_rank != kAllRanks) return pattern_value(spec, src_rank, index);
  return visit_data_type(spec.dtype, [&](auto tag) {
    using T = decltype(tag);
    Generator<T> gen(spec);
    std::vector<uint64_t> keys;
    for (int r = 0; r < spec.nranks; ++r) keys.push_back(gen.key(r));
    return TypeOps<T>::to_double(gen.reduced(keys, index));
  });
}

}  // namespace fabscope
