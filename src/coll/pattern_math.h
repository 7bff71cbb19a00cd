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

// One hash per 16 bytes of a buffer, so that the GPU kernels write and check at the
// memory's speed (a hash per element held 1-byte types to a tenth of a copy's): element
// `index` of a type of `elem_bytes` bytes lies in chunk index / (16 / elem_bytes), at
// lane index % (16 / elem_bytes); the chunk's 128 bits are cut into lanes of
// 8 * elem_bytes bits, lane 0 the lowest bits of `lo`.
struct ChunkBits {
  uint64_t lo;
  uint64_t hi;
};
FABSCOPE_HD inline ChunkBits chunk_bits(uint64_t key, uint64_t chunk) {
  const uint64_t lo = elem_hash(key, chunk);
  return {lo, (lo ^ (lo >> 29)) * 0xbf58476d1ce4e5b9ull};
}
FABSCOPE_HD inline uint64_t lane_bits(const ChunkBits& b, unsigned lane, unsigned elem_bytes) {
  if (elem_bytes >= 8) return lane == 0 ? b.lo : b.hi;
  const unsigned bits = 8 * elem_bytes;
  const unsigned at = lane * bits;
  const uint64_t word = at < 64 ? b.lo : b.hi;
  return (word >> (at & 63)) & ((1ull << bits) - 1);
}
// A value in [0, m) from the low 16 bits of `bits` (multiply-high, not a division), for
// m < 2^16 (2 * sum_amp + 1 and 2 * wide_amp + 1 are at most 2001): the product fits in
// 32 bits.
FABSCOPE_HD inline uint64_t range16(uint64_t bits, uint64_t m) {
#if defined(__CUDA_ARCH__)
  // The high word of (bits << 16) * m: one multiply. (Written as below, the compiler
  // widened the 32-bit product back to 64 bits: three multiplies and two shifts.)
  return __umulhi(static_cast<uint32_t>(bits) << 16, static_cast<uint32_t>(m));
#else
  return (static_cast<uint32_t>(bits & 0xffff) * static_cast<uint32_t>(m)) >> 16;
#endif
}
// Which rank carries a product's factor 2 or 3 at `index`: each group of 16 indexes has a
// base rank b in [0, nranks) drawn by one hash, and its element l (l = index & 15) has rank
// (b + l) mod nranks. One rank per index, and every rank of up to 16 within each group.
// special_group_bits is the group's hash; special_lanes, from it, the elements of the
// group whose factor is `rank`'s, as a 16-bit mask: l = (rank - b) mod nranks, then every
// nranks-th, which is `period` (Params::special_period: bits 0, n, 2n, ... below 16)
// shifted. A GPU thread takes the mask once for its chunk and tests a bit per lane (a
// 32-bit mix per lane held the 1-byte products' fill to 0.21 of a copy on an H200).
FABSCOPE_HD inline uint32_t special_group_bits(uint64_t special_key, uint64_t index) {
  return static_cast<uint32_t>(elem_hash(special_key, index >> 4) >> 32);
}
FABSCOPE_HD inline uint64_t special_base(uint32_t group_bits, uint64_t nranks) {
  return (static_cast<uint64_t>(group_bits) * static_cast<uint32_t>(nranks)) >> 32;  // nranks < 2^32
}
FABSCOPE_HD inline uint32_t special_lanes(uint32_t group_bits, int rank, uint64_t nranks, uint32_t period) {
  const uint64_t b = special_base(group_bits, nranks);
  const auto r = static_cast<uint64_t>(rank);
  const uint64_t d = r >= b ? r - b : r + nranks - b;  // in [0, nranks)
  return d < 16 ? (period << d) & 0xffffu : 0u;
}
FABSCOPE_HD inline uint64_t special_rank(uint64_t special_key, uint64_t index, uint64_t nranks) {
  return (special_base(special_group_bits(special_key, index), nranks) + (index & 15)) % nranks;
}

// How values are generated for one (data type, operator, rank count): sums of small
// integers, products of +-1 with a single factor 2 or 3 per index, wide values for
// min/max and copies. Floating types stay within their exact-integer range.
enum class Kind : int { kSum = 0, kProd = 1, kWide = 2 };

struct Params {
  Kind kind = Kind::kWide;
  unsigned elem_bytes = 8;  // the element type's size: 16 / elem_bytes lanes per chunk
  unsigned lane_shift = 1;  // log2 of the lanes per chunk
  bool is_float = false;
  bool is_signed = false;
  uint64_t nranks = 1;
  uint64_t special_key = 0;     // which rank carries the factor 2 or 3 of a product
  uint32_t special_period = 1;  // bits 0, nranks, 2 * nranks, ... below 16 (special_lanes)
  int64_t sum_amp = 0;          // floats: values in [-sum_amp, sum_amp]
  uint64_t sparse_group = 1;    // floats with too many ranks for sum_amp >= 1: sparse 0/1 values
  int64_t wide_amp = 0;         // floats: min/max/copy values in [-wide_amp, wide_amp]
};

// `exact_limit`: 2^24 float, 2^53 double, 2048 half, 256 bfloat16 (unused for integers).
FABSCOPE_HD inline Params make_params(Kind kind, bool is_float, bool is_signed, uint64_t exact_limit, uint64_t seed,
                                      int nranks, unsigned elem_bytes) {
  Params p;
  p.kind = kind;
  p.elem_bytes = elem_bytes;
  p.lane_shift = elem_bytes >= 8 ? 1 : elem_bytes == 4 ? 2 : elem_bytes == 2 ? 3 : 4;
  p.is_float = is_float;
  p.is_signed = is_signed;
  p.nranks = static_cast<uint64_t>(nranks);
  p.special_key = rank_key(seed, -1);
  p.special_period = 0;
  for (uint64_t l = 0; l < 16; l += p.nranks) p.special_period |= 1u << l;
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
// A quotient that fits in 32 bits is taken in 32 bits (the same quotient: a GPU divides
// 64-bit integers in software, several times slower).
template <typename T>
FABSCOPE_HD inline T divide(T v, int n) {
  if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    const int64_t w = static_cast<int64_t>(v);
    if (w == static_cast<int32_t>(w)) return static_cast<T>(static_cast<int32_t>(w) / static_cast<int32_t>(n));
    return static_cast<T>(w / static_cast<int64_t>(n));
  } else if constexpr (std::is_integral_v<T>) {
    const uint64_t w = static_cast<uint64_t>(v);
    if (w == static_cast<uint32_t>(w)) return static_cast<T>(static_cast<uint32_t>(w) / static_cast<uint32_t>(n));
    return static_cast<T>(w / static_cast<uint64_t>(n));
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

// The kind of values an operator needs; a constant expression, so that the GPU's
// reduced verification takes it from its operator at compile time.
FABSCOPE_HD constexpr Kind kind_of(ReduceOp op) {
  switch (op) {
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
// None: a collective that does not reduce, whose values are wide.
inline Kind kind_of(const std::optional<ReduceOp>& op) { return op ? kind_of(*op) : Kind::kWide; }

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
  return make_params(kind_of(op), is_floating(t), is_signed(t), exact_limit(t), seed, nranks,
                     static_cast<unsigned>(element_size(t)));
}

// A product's lane: +-1, or +-2 or +-3 where `special` (the index's bit of its group's
// special_lanes for the rank).
FABSCOPE_HD inline int64_t product_value(const Params& p, bool special, uint64_t bits) {
  int64_t v = special ? 2 + static_cast<int64_t>(bits & 1) : 1;
  if (p.is_signed && ((bits >> 1) & 1)) v = -v;
  return v;
}
// The same from the group's hash: `group_bits` = special_group_bits(p.special_key, index).
FABSCOPE_HD inline int64_t product_lane(const Params& p, uint32_t group_bits, uint64_t bits, int rank, uint64_t index) {
  const uint32_t lanes = special_lanes(group_bits, rank, p.nranks, p.special_period);
  return product_value(p, ((lanes >> (index & 15)) & 1) != 0, bits);
}

// The number a lane of `bits` (lane_bits) holds for element `index` of `rank`, by kind.
template <Kind K>
FABSCOPE_HD inline int64_t lane_number(const Params& p, uint64_t bits, int rank, uint64_t index) {
  if constexpr (K == Kind::kSum) {
    if (p.is_float) {
      if (p.sum_amp > 0)
        return static_cast<int64_t>(range16(bits, static_cast<uint64_t>(2 * p.sum_amp + 1))) - p.sum_amp;
      return (static_cast<uint64_t>(rank) % p.sparse_group == index % p.sparse_group) ? static_cast<int64_t>(bits & 1)
                                                                                      : 0;
    }
    return p.is_signed ? static_cast<int64_t>(bits & 15) - 8 : static_cast<int64_t>(bits & 15);
  } else if constexpr (K == Kind::kProd) {
    return product_lane(p, special_group_bits(p.special_key, index), bits, rank, index);
  } else {
    if (p.is_float) return static_cast<int64_t>(range16(bits, static_cast<uint64_t>(2 * p.wide_amp + 1))) - p.wide_amp;
    return static_cast<int64_t>(bits);  // all 8 * elem_bytes bits
  }
}

FABSCOPE_HD inline int64_t lane_number(const Params& p, uint64_t bits, int rank, uint64_t index) {
  switch (p.kind) {
    case Kind::kSum:
      return lane_number<Kind::kSum>(p, bits, rank, index);
    case Kind::kProd:
      return lane_number<Kind::kProd>(p, bits, rank, index);
    case Kind::kWide:
      return lane_number<Kind::kWide>(p, bits, rank, index);
  }
  return 0;
}

// The lanes of a chunk of a 1-byte integer type as two words, eight lanes a word,
// without going lane by lane (what the GPU kernels write): wide values are the bytes
// themselves; sums their low nibbles, minus 8 for a signed type (+ 0x78 cannot carry
// out of a byte, and the flip of bit 7 then makes it (b & 15) - 8 in two's complement).
// Equal, lane for lane, to lane_number<K> (a unit test holds them to it).
template <Kind K>
FABSCOPE_HD inline ChunkBits byte_lanes(const ChunkBits& b, bool is_signed) {
  static_assert(K != Kind::kProd, "products go lane by lane");
  if constexpr (K == Kind::kWide) return b;
  constexpr uint64_t kNibbles = 0x0f0f0f0f0f0f0f0full;
  ChunkBits v{b.lo & kNibbles, b.hi & kNibbles};
  if (is_signed) {
    v.lo = (v.lo + 0x7878787878787878ull) ^ 0x8080808080808080ull;
    v.hi = (v.hi + 0x7878787878787878ull) ^ 0x8080808080808080ull;
  }
  return v;
}
// A product's lanes of a 1-byte integer type as two words (what the GPU writes), from the
// chunk's bits and its 16 lanes' special mask (special_lanes of the group, which the chunk
// is): per byte 1, or 2 + bit 0 where special, negated where bit 1 is set for a signed
// type. No byte carries into the next. Equal, lane for lane, to product_lane (a unit test).
FABSCOPE_HD inline uint64_t spread_bits_to_bytes(uint32_t m8) {  // bit j of m8 -> byte j, 0 or 1
  const uint64_t y = (static_cast<uint64_t>(m8 & 0xffu) * 0x0101010101010101ull) & 0x8040201008040201ull;
  return ((y | ((y & 0x7f7f7f7f7f7f7f7full) + 0x7f7f7f7f7f7f7f7full)) >> 7) & 0x0101010101010101ull;
}
FABSCOPE_HD inline uint64_t product_byte_word(uint64_t bits, uint32_t special8, bool is_signed) {
  constexpr uint64_t kOnes = 0x0101010101010101ull;
  const uint64_t special = spread_bits_to_bytes(special8);
  uint64_t v = kOnes + special + (special & bits);
  if (is_signed) {
    const uint64_t neg = ((bits >> 1) & kOnes) * 0xff;  // 0xff in each byte to negate
    v = (v ^ neg) + (neg & kOnes);
  }
  return v;
}
FABSCOPE_HD inline ChunkBits product_byte_lanes(const ChunkBits& b, uint32_t special16, bool is_signed) {
  return {product_byte_word(b.lo, special16 & 0xffu, is_signed), product_byte_word(b.hi, special16 >> 8, is_signed)};
}

// Bytes that differ between two words: bit 7 of each byte of the mask says so.
FABSCOPE_HD inline uint64_t differing_bytes_mask(uint64_t a, uint64_t b) {
  const uint64_t d = a ^ b;
  return (d | ((d & 0x7f7f7f7f7f7f7f7full) + 0x7f7f7f7f7f7f7f7full)) & 0x8080808080808080ull;
}

// The number element `index` of `rank` holds (before conversion to its type);
// `key` = rank_key(seed, rank). Integers of kWide carry all their bits.
FABSCOPE_HD inline int64_t number(const Params& p, uint64_t key, int rank, uint64_t index) {
  const unsigned lane = static_cast<unsigned>(index & ((1u << p.lane_shift) - 1));
  return lane_number(p, lane_bits(chunk_bits(key, index >> p.lane_shift), lane, p.elem_bytes), rank, index);
}

// The reduction of every rank's value at one index, folded in rank order: the
// expected result, the same on host and device. Floating types accumulate in double on
// the host; every partial result is an integer of at most exact_limit (sums of at most
// sum_amp per rank with sum_amp * nranks <= exact_limit, or of sparse 0/1 values;
// products of +-1 and one +-2 or +-3; minima and maxima), so that float, 16-bit floats'
// accumulator on the GPU, gives the same bits. Integers fold in wrap-around arithmetic,
// associative and commutative, in 32 bits for types of up to 4 bytes (the same low bits).
// An average's division is left to the caller.
template <typename A>
class BasicFloatFold {
 public:
  FABSCOPE_HD BasicFloatFold() : op_(ReduceOp::kSum) {}  // for arrays of folds (one per lane)
  FABSCOPE_HD explicit BasicFloatFold(ReduceOp op) : op_(op) {}
  FABSCOPE_HD void add(A v) {
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
  FABSCOPE_HD A result() const { return acc_; }

 private:
  ReduceOp op_;
  A acc_ = 0;
  bool first_ = true;
};
using FloatFold = BasicFloatFold<double>;

template <typename S>
class IntFold {
 public:
  FABSCOPE_HD IntFold() : op_(ReduceOp::kSum) {}
  FABSCOPE_HD explicit IntFold(ReduceOp op) : op_(op) {}
  FABSCOPE_HD void add(S v) {
    const Wide bits = static_cast<Wide>(static_cast<std::make_unsigned_t<S>>(v));
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
  using Wide = std::conditional_t<sizeof(S) <= 4, uint32_t, uint64_t>;
  S acc_{};
  Wide wide_ = 0;
  bool first_ = true;
};

}  // namespace fabscope::pattern_math
