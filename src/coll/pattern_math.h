// The per-element arithmetic of fabscope's data pattern, written once for the host
// (src/coll/pattern.cpp) and the GPU (kernels/): hashing (seed, rank, index) to a
// number, the 16-bit float conversions, and the parameters that make every reduction
// exact in any order. Plain C++ that nvcc also compiles as __host__ __device__.
#pragma once

#include <cstdint>

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

}  // namespace fabscope::pattern_math
