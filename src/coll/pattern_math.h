// The per-element arithmetic of fabscope's data pattern, written once for the host
// (src/coll/pattern.cpp) and the GPU (kernels/): hashing (seed, rank, index) to a
// number, the 16-bit float conversions, and the parameters that make every reduction
// exact in any order. Plain C++ that nvcc also compiles as __host__ __device__.
#pragma once

#include <cstdint>
#include <optional>
#include <type_traits>

#include "core/dtype.h"
#include "core/half_bits.h"

namespace fabscope::pattern_math {

using hd::bfloat16_bits_to_float;
using hd::bits_as;
using hd::float_to_bfloat16_bits;
using hd::float_to_half_bits;
using hd::half_bits_to_float;

FABSCOPE_HD inline uint64_t mix64(uint64_t x) {  // splitmix64's finaliser
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 31;
  return x;
}
FABSCOPE_HD inline uint64_t rank_key(uint64_t seed, int rank) {
  return mix64(seed + 0x9e3779b97f4a7c15ull * static_cast<uint64_t>(rank + 2));
}
FABSCOPE_HD inline uint64_t elem_hash(uint64_t key, uint64_t index) {
  return mix64(key ^ (index * 0xd1b54a32d192ed03ull));
}

// How values are generated for one (data type, operator, rank count): sums of small
// integers, products of +-1 with a single factor 2 or 3 per index, wide values for
// min/max and copies. Floating types stay within their exact-integer range.
enum class Kind : int { kSum = 0, kProd = 1, kWide = 2 };

struct Params {
  Kind kind = Kind::kWide;
  bool is_float = false;
  bool is_signed = false;
  uint64_t nranks = 1;
  uint64_t special_key = 0;   // which rank carries the factor 2 or 3 of a product
  int64_t sum_amp = 0;        // floats: values in [-sum_amp, sum_amp]
  uint64_t sparse_group = 1;  // floats with too many ranks for sum_amp >= 1: sparse 0/1 values
  int64_t wide_amp = 0;       // floats: min/max/copy values in [-wide_amp, wide_amp]
};

// `exact_limit`: 2^24 float, 2^53 double, 2048 half, 256 bfloat16 (unused for integers).
FABSCOPE_HD inline Params make_params(Kind kind, bool is_float, bool is_signed, uint64_t exact_limit, uint64_t seed,
                                      int nranks) {
  Params p;
  p.kind = kind;
  p.is_float = is_float;
  p.is_signed = is_signed;
  p.nranks = static_cast<uint64_t>(nranks);
  p.special_key = rank_key(seed, -1);
  if (is_float) {
    uint64_t a = exact_limit / p.nranks < 8 ? exact_limit / p.nranks : 8;
    p.sum_amp = static_cast<int64_t>(a);
    p.sparse_group = a == 0 ? (p.nranks + exact_limit - 1) / exact_limit : 1;
    p.wide_amp = static_cast<int64_t>(exact_limit - 1 < 1000 ? exact_limit - 1 : 1000);
  }
  return p;
}

// An average's division by the rank count, in the element type's own arithmetic:
// 16-bit floats (their bits) through float; integers in 64 bits, so that the rank
// count does not wrap to the element type (int8 at 200 ranks).
FABSCOPE_HD inline uint16_t divide_half_bits(uint16_t v, int n) {
  return float_to_half_bits(half_bits_to_float(v) / static_cast<float>(n));
}
FABSCOPE_HD inline uint16_t divide_bfloat16_bits(uint16_t v, int n) {
  return float_to_bfloat16_bits(bfloat16_bits_to_float(v) / static_cast<float>(n));
}
template <typename T>
FABSCOPE_HD inline T divide(T v, int n) {
  if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    return static_cast<T>(static_cast<int64_t>(v) / static_cast<int64_t>(n));
  } else if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(static_cast<uint64_t>(v) / static_cast<uint64_t>(n));
  } else {
    return static_cast<T>(v / static_cast<T>(n));
  }
}

// How far an average of a floating type may be from the expected value (as
// nccl-tests allows): the division rounds.
inline constexpr uint64_t kAverageUlps = 2;

// Order-preserving integer image of a float's bits (a 16-bit float's as stored), so
// that the distance between two images counts ulps.
FABSCOPE_HD inline int64_t ordered_bits16(uint16_t bits) {
  int64_t b = bits;
  return (b & 0x8000) ? -(b & 0x7fff) : b;
}
FABSCOPE_HD inline int64_t ordered(float v) {
  int64_t b = bits_as<uint32_t>(v);
  return (b & 0x80000000ll) ? -(b & 0x7fffffffll) : b;
}
FABSCOPE_HD inline int64_t ordered(double v) {
  uint64_t b = bits_as<uint64_t>(v);
  int64_t mag = static_cast<int64_t>(b & 0x7fffffffffffffffull);
  return (b >> 63) ? -mag : mag;
}
FABSCOPE_HD inline uint64_t ulp_distance(int64_t x, int64_t y) {
  return x > y ? static_cast<uint64_t>(x - y) : static_cast<uint64_t>(y - x);
}

// Host code from here to number(): the parameters of one pattern, chosen once for
// the host generator (coll/pattern.cpp) and the GPU kernels (which take the result).

// The kind of values an operator needs (none: a collective that does not reduce).
inline Kind kind_of(const std::optional<ReduceOp>& op) {
  if (!op) return Kind::kWide;
  switch (*op) {
    case ReduceOp::kSum:
    case ReduceOp::kAvg:
      return Kind::kSum;
    case ReduceOp::kProd:
      return Kind::kProd;
    case ReduceOp::kMin:
    case ReduceOp::kMax:
      return Kind::kWide;
  }
  return Kind::kWide;
}

// make_params' `exact_limit` of an element type (0 for integers, where it is unused).
inline uint64_t exact_limit(DataType t) {
  switch (t) {
    case DataType::kHalf:
      return 2048;
    case DataType::kBfloat16:
      return 256;
    case DataType::kFloat:
      return 1ull << 24;
    case DataType::kDouble:
      return 1ull << 53;
    default:
      return 0;
  }
}

inline Params params_for(DataType t, const std::optional<ReduceOp>& op, uint64_t seed, int nranks) {
  return make_params(kind_of(op), is_floating(t), is_signed(t), exact_limit(t), seed, nranks);
}

// The number element `index` of `rank` holds (before conversion to its type);
// `key` = rank_key(seed, rank). Integers of kWide carry all 64 bits.
FABSCOPE_HD inline int64_t number(const Params& p, uint64_t key, int rank, uint64_t index) {
  uint64_t h = elem_hash(key, index);
  switch (p.kind) {
    case Kind::kSum:
      if (p.is_float) {
        if (p.sum_amp > 0) return static_cast<int64_t>(h % static_cast<uint64_t>(2 * p.sum_amp + 1)) - p.sum_amp;
        return (static_cast<uint64_t>(rank) % p.sparse_group == index % p.sparse_group) ? static_cast<int64_t>(h & 1)
                                                                                        : 0;
      }
      return p.is_signed ? static_cast<int64_t>(h & 15) - 8 : static_cast<int64_t>(h & 15);
    case Kind::kProd: {
      bool special = elem_hash(p.special_key, index) % p.nranks == static_cast<uint64_t>(rank);
      int64_t v = special ? 2 + static_cast<int64_t>(h & 1) : 1;
      if (p.is_signed && ((h >> 1) & 1)) v = -v;
      return v;
    }
    case Kind::kWide:
      if (p.is_float) return static_cast<int64_t>(h % static_cast<uint64_t>(2 * p.wide_amp + 1)) - p.wide_amp;
      return static_cast<int64_t>(h);
  }
  return 0;
}

// The reduction of every rank's value at one index, folded in rank order: the
// expected result, the same on host and device. Floating types accumulate in double
// (exact, by the choice of values); integers in wrap-around arithmetic, which is
// associative and commutative. An average's division is left to the caller.
class FloatFold {
 public:
  FABSCOPE_HD explicit FloatFold(ReduceOp op) : op_(op) {}
  FABSCOPE_HD void add(double v) {
    if (first_) {
      acc_ = v;
      first_ = false;
    } else if (op_ == ReduceOp::kSum || op_ == ReduceOp::kAvg) {
      acc_ += v;
    } else if (op_ == ReduceOp::kProd) {
      acc_ *= v;
    } else if (op_ == ReduceOp::kMin) {
      acc_ = v < acc_ ? v : acc_;
    } else {
      acc_ = v > acc_ ? v : acc_;
    }
  }
  FABSCOPE_HD double result() const { return acc_; }

 private:
  ReduceOp op_;
  double acc_ = 0;
  bool first_ = true;
};

template <typename S>
class IntFold {
 public:
  FABSCOPE_HD explicit IntFold(ReduceOp op) : op_(op) {}
  FABSCOPE_HD void add(S v) {
    const uint64_t bits = static_cast<uint64_t>(static_cast<std::make_unsigned_t<S>>(v));
    if (first_) {
      acc_ = v;
      wide_ = bits;
      first_ = false;
    } else if (op_ == ReduceOp::kSum || op_ == ReduceOp::kAvg) {
      wide_ += bits;
    } else if (op_ == ReduceOp::kProd) {
      wide_ *= bits;
    } else if (op_ == ReduceOp::kMin) {
      acc_ = v < acc_ ? v : acc_;
    } else {
      acc_ = v > acc_ ? v : acc_;
    }
  }
  FABSCOPE_HD S result() const { return op_ == ReduceOp::kMin || op_ == ReduceOp::kMax ? acc_ : static_cast<S>(wide_); }

 private:
  ReduceOp op_;
  S acc_{};
  uint64_t wide_ = 0;
  bool first_ = true;
};

}  // namespace fabscope::pattern_math
