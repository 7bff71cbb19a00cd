#include "coll/pattern.h"

#include "coll/pattern_math.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

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

  const pattern_math::Params& params() const { return params_; }

  // The reduction of every rank's value at one index: a fold, each rank's number
  // added in rank order, then finished (an average divided).
  using Fold = std::conditional_t<Ops::kFloat, pattern_math::FloatFold, pattern_math::IntFold<T>>;
  Fold fold() const { return Fold(*spec_.op); }
  static void add(Fold& f, int64_t number) {
    if constexpr (Ops::kFloat) {
      f.add(Ops::to_double(Ops::from_number(number)));
    } else {
      f.add(Ops::from_number(number));
    }
  }
  T finish(const Fold& f) const {
    T result;
    if constexpr (Ops::kFloat) {
      result = Ops::from_double(f.result());
    } else {
      result = f.result();
    }
    if (*spec_.op == ReduceOp::kAvg) result = divide(result, spec_.nranks);
    return result;
  }
  // `next(r)` gives rank r's number.
  template <typename Next>
  T reduce(size_t nranks, Next&& next) const {
    Fold f = fold();
    for (size_t r = 0; r < nranks; ++r) add(f, next(r));
    return finish(f);
  }
  // At `index`, with keys precomputed per rank.
  T reduced(const std::vector<uint64_t>& keys, uint64_t index) const {
    return reduce(keys.size(), [&](size_t r) { return number(keys[r], static_cast<int>(r), index); });
  }
  // At the runs' next index (each run one rank's, in rank order), advancing them.
  template <typename Run>
  T reduced(std::vector<Run>& runs) const {
    return reduce(runs.size(), [&](size_t r) { return runs[r].next(); });
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

// The number of a lane of `bits` at `index` for `rank`, by kind: products take their
// factor's rank from `group` (special_group_bits of the index's group of 16), which the
// walks below compute once per group, not per element.
template <pattern_math::Kind K>
int64_t walk_number(const pattern_math::Params& p, uint32_t group, uint64_t bits, int rank, uint64_t index) {
  if constexpr (K == pattern_math::Kind::kProd) {
    return pattern_math::product_lane(p, group, bits, rank, index);
  } else {
    return pattern_math::lane_number<K>(p, bits, rank, index);
  }
}

// Elements before the first whole 16-byte chunk of a walk from `first` (at most `count`).
template <size_t kLanes>
size_t head_count(uint64_t first, size_t count) {
  return std::min<size_t>(count, (kLanes - (first & (kLanes - 1))) & (kLanes - 1));
}

// The numbers one rank holds at consecutive indexes, as pattern_math::number gives
// them for a type of kBytes bytes, with one hash per 16-byte chunk (and, for products,
// one per group of 16 indexes) where number() takes one per element: what host_fill
// and host_count_wrong walk.
template <pattern_math::Kind K, unsigned kBytes>
class NumberRun {
 public:
  NumberRun(const pattern_math::Params& p, uint64_t key, int rank, uint64_t index)
      : p_(p), key_(key), rank_(rank), index_(index) {
    bits_ = pattern_math::chunk_bits(key_, index_ >> p_.lane_shift);
    if constexpr (K == pattern_math::Kind::kProd) group_ = pattern_math::special_group_bits(p_.special_key, index_);
  }

  int64_t next() {
    constexpr uint64_t kLaneMask = 16 / kBytes - 1;
    const auto lane = static_cast<unsigned>(index_ & kLaneMask);
    const int64_t v = walk_number<K>(p_, group_, pattern_math::lane_bits(bits_, lane, kBytes), rank_, index_);
    ++index_;
    if ((index_ & kLaneMask) == 0) bits_ = pattern_math::chunk_bits(key_, index_ >> p_.lane_shift);
    if constexpr (K == pattern_math::Kind::kProd) {
      if ((index_ & 15) == 0) group_ = pattern_math::special_group_bits(p_.special_key, index_);
    }
    return v;
  }

 private:
  const pattern_math::Params p_;
  const uint64_t key_;
  const int rank_;
  uint64_t index_;
  pattern_math::ChunkBits bits_{};
  uint32_t group_ = 0;
};
template <typename T, pattern_math::Kind K>
using RunOf = NumberRun<K, static_cast<unsigned>(sizeof(T))>;

// Calls emit(i, number) for i in [0, count), the numbers of indexes first + i of one
// rank: whole chunks at a time (one hash each, the lanes unrolled), NumberRun for the
// partial chunks at the two ends.
template <typename T, pattern_math::Kind K, typename Emit>
void for_each_number(const pattern_math::Params& p, uint64_t key, int rank, uint64_t first, size_t count, Emit&& emit) {
  constexpr unsigned kBytes = sizeof(T);
  constexpr size_t kLanes = 16 / kBytes;
  size_t i = 0;
  const size_t head = head_count<kLanes>(first, count);
  if (head > 0) {
    RunOf<T, K> run(p, key, rank, first);
    for (; i < head; ++i) emit(i, run.next());
  }
  for (; i + kLanes <= count; i += kLanes) {
    const uint64_t index = first + i;
    const pattern_math::ChunkBits b = pattern_math::chunk_bits(key, index / kLanes);
    [[maybe_unused]] uint32_t group = 0;  // a chunk lies within one product group of 16
    if constexpr (K == pattern_math::Kind::kProd) group = pattern_math::special_group_bits(p.special_key, index);
    for (unsigned lane = 0; lane < kLanes; ++lane) {
      emit(i + lane, walk_number<K>(p, group, pattern_math::lane_bits(b, lane, kBytes), rank, index + lane));
    }
  }
  if (i < count) {
    RunOf<T, K> run(p, key, rank, first + i);
    for (; i < count; ++i) emit(i, run.next());
  }
}

// Calls fn(std::integral_constant<Kind, K>) for the pattern's kind.
template <typename Fn>
decltype(auto) visit_kind(pattern_math::Kind kind, Fn&& fn) {
  using pattern_math::Kind;
  switch (kind) {
    case Kind::kSum:
      return fn(std::integral_constant<Kind, Kind::kSum>{});
    case Kind::kProd:
      return fn(std::integral_constant<Kind, Kind::kProd>{});
    case Kind::kWide:
      break;
  }
  return fn(std::integral_constant<Kind, Kind::kWide>{});
}

template <typename T>
void fill_typed(void* buffer, const PatternSpec& spec, std::span<const Segment> segments) {
  Generator<T> gen(spec);
  T* out = static_cast<T*>(buffer);
  visit_kind(gen.params().kind, [&](auto kind) {
    for (const Segment& s : segments) {
      T* dst = out + s.offset;
      for_each_number<T, decltype(kind)::value>(gen.params(), gen.key(s.src_rank), s.src_rank, s.index_base, s.count,
                                                [&](size_t i, int64_t v) { dst[i] = TypeOps<T>::from_number(v); });
    }
  });
}

// Elements of `got` that differ from the reduction over all ranks of indexes first + i:
// whole chunks at a time (one hash per rank and chunk, a fold per lane), NumberRuns
// for the partial chunks at the two ends.
template <typename T, pattern_math::Kind K>
uint64_t count_wrong_reduced(const Generator<T>& gen, const std::vector<uint64_t>& keys, const T* got, uint64_t first,
                             size_t count) {
  constexpr unsigned kBytes = sizeof(T);
  constexpr size_t kLanes = 16 / kBytes;
  const pattern_math::Params& p = gen.params();
  uint64_t wrong = 0;
  auto ends = [&](size_t from, size_t to) {
    std::vector<RunOf<T, K>> runs;
    runs.reserve(keys.size());
    for (size_t r = 0; r < keys.size(); ++r) runs.emplace_back(p, keys[r], static_cast<int>(r), first + from);
    for (size_t i = from; i < to; ++i) wrong += gen.equal(got[i], gen.reduced(runs)) ? 0 : 1;
  };
  const size_t head = head_count<kLanes>(first, count);
  if (head > 0) ends(0, head);
  size_t i = head;
  for (; i + kLanes <= count; i += kLanes) {
    const uint64_t index = first + i;
    [[maybe_unused]] uint32_t group = 0;
    if constexpr (K == pattern_math::Kind::kProd) group = pattern_math::special_group_bits(p.special_key, index);
    std::array<typename Generator<T>::Fold, kLanes> folds;
    folds.fill(gen.fold());
    for (size_t r = 0; r < keys.size(); ++r) {
      const pattern_math::ChunkBits b = pattern_math::chunk_bits(keys[r], index / kLanes);
      const int rank = static_cast<int>(r);
      for (unsigned lane = 0; lane < kLanes; ++lane) {
        Generator<T>::add(folds[lane],
                          walk_number<K>(p, group, pattern_math::lane_bits(b, lane, kBytes), rank, index + lane));
      }
    }
    for (unsigned lane = 0; lane < kLanes; ++lane) wrong += gen.equal(got[i + lane], gen.finish(folds[lane])) ? 0 : 1;
  }
  if (i < count) ends(i, count);
  return wrong;
}

template <typename T>
uint64_t count_wrong_typed(const void* buffer, const PatternSpec& spec, std::span<const Segment> segments) {
  Generator<T> gen(spec);
  const T* in = static_cast<const T*>(buffer);
  std::vector<uint64_t> keys;
  return visit_kind(gen.params().kind, [&](auto kind) {
    constexpr pattern_math::Kind K = decltype(kind)::value;
    uint64_t wrong = 0;
    for (const Segment& s : segments) {
      const T* got = in + s.offset;
      if (s.src_rank == kAllRanks) {
        if (keys.empty()) {
          for (int r = 0; r < spec.nranks; ++r) keys.push_back(gen.key(r));
        }
        wrong += count_wrong_reduced<T, K>(gen, keys, got, s.index_base, s.count);
      } else {
        for_each_number<T, K>(
            gen.params(), gen.key(s.src_rank), s.src_rank, s.index_base, s.count,
            [&](size_t i, int64_t v) { wrong += gen.equal(got[i], TypeOps<T>::from_number(v)) ? 0 : 1; });
      }
    }
    return wrong;
  });
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
