// The pattern kernels: one thread per 16-byte chunk (grid-stride), one hash per chunk
// and the host's arithmetic per lane from coll/pattern_math.h, 16-byte stores and loads
// where the chunk is whole and aligned; per-block sums of mismatches folded into one
// counter. Specialised by storage type and by the kind of values (sum, product, wide).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstring>
#include <map>
#include <string>
#include <type_traits>

#include "coll/pattern_math.h"
#include "kernels/device_pattern.h"

namespace fabscope::kernels {

namespace pm = pattern_math;

namespace {

// Storage conversions, as the host's TypeOps: 16-bit floats are stored as bits.
enum class Conv { kInt, kFloat, kHalf, kBf16 };

template <typename S, Conv C>
struct DevOps {
  // A floating fold's result (its accumulator's type: Acc below) as an element, rounded
  // to nearest even as the host's float_to_half_bits and float_to_bfloat16_bits round.
  // (Generated numbers are converted in chunk_values.)
  template <typename V>
  __device__ static S from_number(V v) {
    if constexpr (C == Conv::kHalf) {
      return __half_as_ushort(__float2half_rn(static_cast<float>(v)));
    } else if constexpr (C == Conv::kBf16) {
      return pm::float_to_bfloat16_bits(static_cast<float>(v));
    } else {
      return static_cast<S>(v);
    }
  }
  __device__ static double to_double(S v) {
    if constexpr (C == Conv::kHalf) {
      return __half2float(__ushort_as_half(v));  // exact, as the host's half_bits_to_float
    } else if constexpr (C == Conv::kBf16) {
      return pm::bfloat16_bits_to_float(v);
    } else {
      return static_cast<double>(v);
    }
  }
  // A fold's accumulator: float for float and the 16-bit floats, whose folds are exact in
  // it (pattern_math.h's BasicFloatFold); double for double.
  using Acc = std::conditional_t<sizeof(S) == 8, double, float>;
  __device__ static Acc to_acc(S v) {
    if constexpr (sizeof(S) == 8) {
      return to_double(v);
    } else if constexpr (C == Conv::kHalf) {
      return __half2float(__ushort_as_half(v));
    } else if constexpr (C == Conv::kBf16) {
      return pm::bfloat16_bits_to_float(v);
    } else {
      return static_cast<float>(v);
    }
  }
  __device__ static S divide(S v, int n) {
    if constexpr (C == Conv::kHalf) {  // as divide_half_bits, with the hardware's conversions
      return __half_as_ushort(__float2half_rn(__half2float(__ushort_as_half(v)) / static_cast<float>(n)));
    } else if constexpr (C == Conv::kBf16) {
      return pm::divide_bfloat16_bits(v, n);
    } else {
      return pm::divide(v, n);
    }
  }
  __device__ static int64_t ordered(S v) {
    if constexpr (C == Conv::kHalf || C == Conv::kBf16) {
      return pm::ordered_bits16(v);
    } else {
      return pm::ordered(v);
    }
  }
};

struct Spec {
  pm::Params params;
  uint64_t seed;
  int nranks;
  int op;  // ReduceOp as int; -1 none
};

// Elements of one type in a 16-byte chunk.
template <typename S>
constexpr unsigned kLanes = 16 / sizeof(S);

template <typename S>
struct Chunk {
  S v[kLanes<S>];
};

// A generated number of a floating type (an integer of at most a few thousand: sum_amp,
// wide_amp, a product's +-3) as a float or double without a conversion instruction (a
// GPU converts at an eighth of its arithmetic rate, 64-bit integers slower still): its
// bits added to those of 1.5 * 2^23 (2^52), whose ulp is 1, and that number taken away.
__device__ __forceinline__ float small_int_to_float(int64_t v) {  // |v| < 2^22
  return __int_as_float(0x4B400000 + static_cast<int32_t>(v)) - 12582912.0f;
}
__device__ __forceinline__ double small_int_to_double(int64_t v) {  // |v| < 2^51
  return __longlong_as_double(0x4338000000000000ll + v) - 6755399441055744.0;
}

// The number of lane j of chunk `c` of `rank`, from its `bits`, as pm::lane_number has
// it, with what the kernel knows at compile time taken out of the lane: the element type
// (integers: their sign), and for floating types `Dense`, every lane from range16 (wide
// values, or sums with sum_amp > 0, the usual case: a runtime branch per lane, and the
// sparse sums' 64-bit remainders, held the 16-bit floats' check to 0.43 of a copy).
// `special` (products): bit j set where the lane carries the factor 2 or 3 (the chunk's
// lanes of its group's special_lanes).
template <typename S, Conv C, pm::Kind K, bool Dense>
__device__ __forceinline__ int64_t lane_value(const Spec& s, const pm::ChunkBits& b, uint32_t special, int rank,
                                              uint64_t c, unsigned j) {
  const uint64_t bits = pm::lane_bits(b, j, sizeof(S));
  if constexpr (K == pm::Kind::kProd) {
    return pm::product_value(s.params, ((special >> j) & 1) != 0, bits);
  } else if constexpr (C == Conv::kInt && K == pm::Kind::kSum) {
    return std::is_signed_v<S> ? static_cast<int64_t>(bits & 15) - 8 : static_cast<int64_t>(bits & 15);
  } else if constexpr (C == Conv::kInt) {
    return static_cast<int64_t>(bits);
  } else if constexpr (Dense) {
    const int64_t amp = K == pm::Kind::kSum ? s.params.sum_amp : s.params.wide_amp;
    return static_cast<int64_t>(pm::range16(bits, static_cast<uint64_t>(2 * amp + 1))) - amp;
  } else {
    return pm::lane_number<K>(s.params, bits, rank, c * kLanes<S> + j);
  }
}

template <typename S, Conv C, pm::Kind K, bool Dense>
__device__ __forceinline__ void chunk_values_as(const Spec& s, const pm::ChunkBits& b, uint32_t special, int rank,
                                                uint64_t c, Chunk<S>& out) {
  if constexpr (sizeof(S) == 1 && K == pm::Kind::kProd) {
    const pm::ChunkBits v = pm::product_byte_lanes(b, special, std::is_signed_v<S>);  // eight lanes a word
    memcpy(out.v, &v, sizeof(v));
  } else if constexpr (sizeof(S) == 1) {
    const pm::ChunkBits v = pm::byte_lanes<K>(b, std::is_signed_v<S>);  // eight lanes a word
    memcpy(out.v, &v, sizeof(v));
  } else if constexpr (C == Conv::kInt) {
#pragma unroll
    for (unsigned j = 0; j < kLanes<S>; ++j) {
      out.v[j] = static_cast<S>(lane_value<S, C, K, Dense>(s, b, special, rank, c, j));
    }
  } else if constexpr (C == Conv::kFloat) {
#pragma unroll
    for (unsigned j = 0; j < kLanes<S>; ++j) {
      const int64_t v = lane_value<S, C, K, Dense>(s, b, special, rank, c, j);
      if constexpr (sizeof(S) == 8) {
        out.v[j] = small_int_to_double(v);
      } else {
        out.v[j] = small_int_to_float(v);
      }
    }
  } else {  // 16-bit floats: exact small integers, converted from float two lanes at a time
#pragma unroll
    for (unsigned j = 0; j < kLanes<S>; j += 2) {
      const float f0 = small_int_to_float(lane_value<S, C, K, Dense>(s, b, special, rank, c, j));
      const float f1 = small_int_to_float(lane_value<S, C, K, Dense>(s, b, special, rank, c, j + 1));
      if constexpr (C == Conv::kHalf) {
        const __half2 h = __floats2half2_rn(f0, f1);
        out.v[j] = __half_as_ushort(__low2half(h));
        out.v[j + 1] = __half_as_ushort(__high2half(h));
      } else {
        const __nv_bfloat162 h = __floats2bfloat162_rn(f0, f1);
        out.v[j] = __bfloat16_as_ushort(__low2bfloat16(h));
        out.v[j + 1] = __bfloat16_as_ushort(__high2bfloat16(h));
      }
    }
  }
}

// The lanes of chunk `c` of `rank` (key = rank_key(seed, rank)), as number() makes them.
template <typename S, Conv C, pm::Kind K>
__device__ __forceinline__ void chunk_values(const Spec& s, uint64_t key, int rank, uint64_t c, Chunk<S>& out) {
  const pm::ChunkBits b = pm::chunk_bits(key, c);
  // A product's special lanes: once for the chunk, whose lanes lie in one group of 16.
  uint32_t special = 0;
  if constexpr (K == pm::Kind::kProd) {
    const uint64_t first = c * kLanes<S>;
    special = pm::special_lanes(pm::special_group_bits(s.params.special_key, first), rank, s.params.nranks,
                                s.params.special_period) >>
              (first & 15);
  }
  // Floating sums are sparse 0/1 values (not range16's) only with more ranks than the
  // type's exact integers allow: the branch once per chunk, each way its own loop.
  if (C == Conv::kInt || K != pm::Kind::kSum || s.params.sum_amp > 0) {
    chunk_values_as<S, C, K, true>(s, b, special, rank, c, out);
  } else {
    chunk_values_as<S, C, K, false>(s, b, special, rank, c, out);
  }
}

// Rank keys a block computes once for the reduced verification (rank_key is a hash):
// the first kSharedKeys ranks' from shared memory, the rest computed as needed.
constexpr int kSharedKeys = 512;
__device__ __forceinline__ uint64_t key_of(const Spec& s, const uint64_t* keys, int r) {
  return r < kSharedKeys ? keys[r] : pm::rank_key(s.seed, r);
}

// The reduction over every rank of chunk `c`, folded per lane as the host folds it.
// The operator is a template parameter: the folds' branches on it fold away.
template <typename S, Conv C, ReduceOp Op>
__device__ __forceinline__ void chunk_reduced(const Spec& s, const uint64_t* keys, uint64_t c, Chunk<S>& out) {
  using Ops = DevOps<S, C>;
  constexpr ReduceOp op = Op;
  constexpr pm::Kind K = pm::kind_of(Op);
  if constexpr (C != Conv::kInt) {
    using Fold = pm::BasicFloatFold<typename Ops::Acc>;
    Fold fold[kLanes<S>];
#pragma unroll
    for (unsigned j = 0; j < kLanes<S>; ++j) fold[j] = Fold(op);
    for (int r = 0; r < s.nranks; ++r) {
      Chunk<S> mine;
      chunk_values<S, C, K>(s, key_of(s, keys, r), r, c, mine);
#pragma unroll
      for (unsigned j = 0; j < kLanes<S>; ++j) fold[j].add(Ops::to_acc(mine.v[j]));
    }
#pragma unroll
    for (unsigned j = 0; j < kLanes<S>; ++j) {
      S result = Ops::from_number(fold[j].result());
      out.v[j] = op == ReduceOp::kAvg ? Ops::divide(result, s.nranks) : result;
    }
  } else {
    pm::IntFold<S> fold[kLanes<S>];
#pragma unroll
    for (unsigned j = 0; j < kLanes<S>; ++j) fold[j] = pm::IntFold<S>(op);
    for (int r = 0; r < s.nranks; ++r) {
      Chunk<S> mine;
      chunk_values<S, C, K>(s, key_of(s, keys, r), r, c, mine);
#pragma unroll
      for (unsigned j = 0; j < kLanes<S>; ++j) fold[j].add(mine.v[j]);
    }
#pragma unroll
    for (unsigned j = 0; j < kLanes<S>; ++j) {
      S acc = fold[j].result();
      out.v[j] = op == ReduceOp::kAvg ? Ops::divide(acc, s.nranks) : acc;
    }
  }
}

// A floating element whose bits differ from the expected: equal as a number (+0 and
// -0), or an average within its ulps.
template <typename S, Conv C>
__device__ __forceinline__ bool equal_as_number(int op, S got, S want) {
  using Ops = DevOps<S, C>;
  if (Ops::to_double(got) == Ops::to_double(want)) return true;
  return op == static_cast<int>(ReduceOp::kAvg) &&
         pm::ulp_distance(Ops::ordered(got), Ops::ordered(want)) <= pm::kAverageUlps;
}

// The lanes (of `differ`, those whose bits differ) that are unequal as numbers. Out of
// line, and called only for a chunk with such lanes (none, where the data is right but
// for a -0 or an average's rounding): the chunks travel by value, in registers, so that
// the kernel's loop keeps no copy of them in local memory.
template <typename S, Conv C>
__device__ __noinline__ unsigned unequal_lanes(int op, uint4 got_word, uint4 want_word, unsigned differ) {
  Chunk<S> got, want;
  memcpy(got.v, &got_word, sizeof(got_word));
  memcpy(want.v, &want_word, sizeof(want_word));
  unsigned n = 0;
#pragma unroll
  for (unsigned j = 0; j < kLanes<S>; ++j) {
    if (((differ >> j) & 1) && !equal_as_number<S, C>(op, got.v[j], want.v[j])) ++n;
  }
  return n;
}

// An element's bits as an unsigned integer of its size.
template <typename S>
using Bits = std::conditional_t<
    sizeof(S) == 8, uint64_t,
    std::conditional_t<sizeof(S) == 4, uint32_t, std::conditional_t<sizeof(S) == 2, uint16_t, uint8_t>>>;

// The lanes of a chunk (those inside the segment: `inside`) that are wrong: exact for
// integers; for floating types the bits first, as integers, and numbers only where the
// bits differ. (Calling a comparison per lane, or passing the chunks by reference to
// one per chunk, which put them in local memory, held float's and the 16-bit floats'
// checks to 0.38-0.57 of a copy on an H100: issue 35.)
template <typename S, Conv C>
__device__ __forceinline__ unsigned wrong_lanes(const Spec& s, const Chunk<S>& got, const Chunk<S>& want,
                                                unsigned inside) {
  unsigned differ = 0;
#pragma unroll
  for (unsigned j = 0; j < kLanes<S>; ++j) {
    differ |= (pm::bits_as<Bits<S>>(got.v[j]) != pm::bits_as<Bits<S>>(want.v[j]) ? 1u : 0u) << j;
  }
  differ &= inside;
  if constexpr (C == Conv::kInt) {
    return static_cast<unsigned>(__popc(differ));
  } else {
    if (differ == 0) return 0;
    uint4 g, w;
    memcpy(&g, got.v, sizeof(g));
    memcpy(&w, want.v, sizeof(w));
    return unequal_lanes<S, C>(s.op, g, w, differ);
  }
}

// Where a segment's chunks lie in its buffer: element e of the segment has index
// index_base + e, in chunk (index_base + e) / lanes; chunk c's lane 0 is element
// c * lanes - index_base. `aligned`: every chunk's lane 0 is 16-byte aligned.
template <typename S>
struct ChunkRange {
  uint64_t first;  // first chunk
  uint64_t end;    // one past the last
  bool aligned;
  __device__ ChunkRange(const S* p, uint64_t index_base, size_t count)
      : first(index_base / kLanes<S>),
        end((index_base + count + kLanes<S> - 1) / kLanes<S>),
        aligned((reinterpret_cast<uintptr_t>(p) - (index_base % kLanes<S>)*sizeof(S)) % 16 == 0) {}
};

// ROp >= 0: the expected reduction over every rank with that operator (what a reduced
// segment's check expects); -1: rank `rank`'s input, of kind K.
template <typename S, Conv C, pm::Kind K, int ROp>
__global__ void fill_kernel(S* out, Spec s, uint64_t key, int rank, uint64_t index_base, size_t count) {
  constexpr bool Reduced = ROp >= 0;
  __shared__ uint64_t keys[Reduced ? kSharedKeys : 1];
  if constexpr (Reduced) {
    for (int r = threadIdx.x; r < s.nranks && r < kSharedKeys; r += blockDim.x) keys[r] = pm::rank_key(s.seed, r);
    __syncthreads();
  }
  const ChunkRange<S> range(out, index_base, count);
  for (uint64_t c = range.first + blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x; c < range.end;
       c += static_cast<uint64_t>(gridDim.x) * blockDim.x) {
    Chunk<S> v;
    if constexpr (Reduced) {
      chunk_reduced<S, C, static_cast<ReduceOp>(Reduced ? ROp : 0)>(s, keys, c, v);
    } else {
      chunk_values<S, C, K>(s, key, rank, c, v);
    }
    const int64_t e0 = static_cast<int64_t>(c * kLanes<S> - index_base);  // lane 0's element; < 0 in the first
    if (range.aligned && e0 >= 0 && static_cast<uint64_t>(e0) + kLanes<S> <= count) {
      uint4 word;
      memcpy(&word, v.v, sizeof(word));
      __stcs(reinterpret_cast<uint4*>(out + e0), word);  // written once: streaming
    } else {
#pragma unroll
      for (unsigned j = 0; j < kLanes<S>; ++j) {
        const int64_t e = e0 + j;
        if (e >= 0 && static_cast<uint64_t>(e) < count) out[e] = v.v[j];
      }
    }
  }
}

constexpr int kThreads = 256;

// ROp >= 0: the reduction over every rank (src_rank -1) with that operator, whose kind of
// values K then is; -1: the elements of rank src_rank's input, of kind K. Apart, so that
// the input's check carries none of the reduction's registers.
template <typename S, Conv C, pm::Kind K, int ROp>
__global__ void __launch_bounds__(256)
    count_kernel(const S* in, Spec s, int src_rank, uint64_t index_base, size_t count, unsigned long long* wrong) {
  constexpr bool Reduced = ROp >= 0;
  __shared__ unsigned long long block_sum[kThreads];
  __shared__ uint64_t keys[Reduced ? kSharedKeys : 1];
  if constexpr (Reduced) {
    for (int r = threadIdx.x; r < s.nranks && r < kSharedKeys; r += blockDim.x) keys[r] = pm::rank_key(s.seed, r);
    __syncthreads();
  }
  unsigned long long mine = 0;
  const uint64_t key = Reduced ? 0 : pm::rank_key(s.seed, src_rank);
  const ChunkRange<S> range(in, index_base, count);
  for (uint64_t c = range.first + blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x; c < range.end;
       c += static_cast<uint64_t>(gridDim.x) * blockDim.x) {
    const int64_t e0 = static_cast<int64_t>(c * kLanes<S> - index_base);
    const bool whole = range.aligned && e0 >= 0 && static_cast<uint64_t>(e0) + kLanes<S> <= count;
    Chunk<S> got;
    if (whole) {
      const uint4 word = __ldcs(reinterpret_cast<const uint4*>(in + e0));  // read once: streaming
      memcpy(got.v, &word, sizeof(word));
    } else {
#pragma unroll
      for (unsigned j = 0; j < kLanes<S>; ++j) {
        const int64_t e = e0 + j;
        got.v[j] = e >= 0 && static_cast<uint64_t>(e) < count ? in[e] : S{};
      }
    }
    Chunk<S> want;
    if constexpr (Reduced) {
      chunk_reduced<S, C, static_cast<ReduceOp>(Reduced ? ROp : 0)>(s, keys, c, want);
    } else {
      chunk_values<S, C, K>(s, key, src_rank, c, want);
    }
    if (whole) {  // the usual case, a right chunk: its four words equal, and nothing lane by lane
      uint4 g, w;
      memcpy(&g, got.v, sizeof(g));
      memcpy(&w, want.v, sizeof(w));
      if (((g.x ^ w.x) | (g.y ^ w.y) | (g.z ^ w.z) | (g.w ^ w.w)) == 0) continue;
    }
    if (sizeof(S) == 1 && whole) {  // exact equality: the bytes that differ, eight a word
      uint64_t g[2], w[2];
      memcpy(g, got.v, sizeof(g));
      memcpy(w, want.v, sizeof(w));
      mine += static_cast<unsigned long long>(__popcll(pm::differing_bytes_mask(g[0], w[0])) +
                                              __popcll(pm::differing_bytes_mask(g[1], w[1])));
      continue;
    }
    unsigned inside = (1u << kLanes<S>)-1;
    if (!whole) {
      inside = 0;
#pragma unroll
      for (unsigned j = 0; j < kLanes<S>; ++j) {
        const int64_t e = e0 + j;
        inside |= (e >= 0 && static_cast<uint64_t>(e) < count ? 1u : 0u) << j;
      }
    }
    mine += wrong_lanes<S, C>(s, got, want, inside);
  }
  block_sum[threadIdx.x] = mine;
  __syncthreads();
  for (int stride = kThreads / 2; stride > 0; stride /= 2) {
    if (static_cast<int>(threadIdx.x) < stride) block_sum[threadIdx.x] += block_sum[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0 && block_sum[0] != 0) atomicAdd(wrong, block_sum[0]);
}

__global__ void delay_kernel(unsigned long long ns) {
  unsigned long long start = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  unsigned long long now = start;
  while (now - start < ns) asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
}

Status cuda_status(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return Status::Ok();
  return Status::Runtime(std::string("CUDA ") + what + ": " + cudaGetErrorString(e) + " (" + cudaGetErrorName(e) + ")");
}

// Blocks for the chunks of a segment of `count` elements of `elem_bytes` bytes.
unsigned blocks_for(size_t count, size_t elem_bytes) {
  const size_t chunks = (count * elem_bytes + 15) / 16 + 1;
  size_t b = (chunks + kThreads - 1) / kThreads;
  return static_cast<unsigned>(b < 1 ? 1 : (b > 8192 ? 8192 : b));
}

// The verification's counter on the device and the pinned host word it is read into,
// one pair per device and thread, kept for the process: allocating them on every call
// cost about 0.2 ms, half of a 1 GiB check on an H100.
struct Counter {
  unsigned long long* device = nullptr;
  unsigned long long* host = nullptr;
};
Result<Counter> counter_of_this_thread() {
  int dev = 0;
  FABSCOPE_RETURN_IF_ERROR(cuda_status(cudaGetDevice(&dev), "cudaGetDevice"));
  thread_local std::map<int, Counter> counters;
  Counter& c = counters[dev];
  if (c.device == nullptr) {
    FABSCOPE_RETURN_IF_ERROR(
        cuda_status(cudaMalloc(reinterpret_cast<void**>(&c.device), sizeof(*c.device)), "counter allocation"));
  }
  if (c.host == nullptr) {
    FABSCOPE_RETURN_IF_ERROR(
        cuda_status(cudaMallocHost(reinterpret_cast<void**>(&c.host), sizeof(*c.host)), "pinned counter allocation"));
  }
  return c;
}

Spec make_spec(const PatternSpec& p) {
  return Spec{pm::params_for(p.dtype, p.op, p.seed, p.nranks), p.seed, p.nranks, p.op ? static_cast<int>(*p.op) : -1};
}

// Calls f.template operator()<S, C, K>() for the spec's storage type and kind of values.
template <typename S, Conv C, typename F>
Status with_kind(pm::Kind k, F&& f) {
  switch (k) {
    case pm::Kind::kSum:
      return f.template operator()<S, C, pm::Kind::kSum>();
    case pm::Kind::kProd:
      return f.template operator()<S, C, pm::Kind::kProd>();
    case pm::Kind::kWide:
      return f.template operator()<S, C, pm::Kind::kWide>();
  }
  return Status::Invalid("unknown kind of pattern values");
}

// Calls f.template operator()<Op>() for the reduction's operator.
template <typename F>
Status with_op(ReduceOp op, F&& f) {
  switch (op) {
    case ReduceOp::kSum:
      return f.template operator()<ReduceOp::kSum>();
    case ReduceOp::kProd:
      return f.template operator()<ReduceOp::kProd>();
    case ReduceOp::kMin:
      return f.template operator()<ReduceOp::kMin>();
    case ReduceOp::kMax:
      return f.template operator()<ReduceOp::kMax>();
    case ReduceOp::kAvg:
      return f.template operator()<ReduceOp::kAvg>();
  }
  return Status::Invalid("unknown reduction operator");
}

template <typename F>
Status with_type(DataType t, F&& f) {
  switch (t) {
    case DataType::kInt8:
      return f.template operator()<int8_t, Conv::kInt>();
    case DataType::kUint8:
      return f.template operator()<uint8_t, Conv::kInt>();
    case DataType::kInt32:
      return f.template operator()<int32_t, Conv::kInt>();
    case DataType::kUint32:
      return f.template operator()<uint32_t, Conv::kInt>();
    case DataType::kInt64:
      return f.template operator()<int64_t, Conv::kInt>();
    case DataType::kUint64:
      return f.template operator()<uint64_t, Conv::kInt>();
    case DataType::kHalf:
      return f.template operator()<uint16_t, Conv::kHalf>();
    case DataType::kBfloat16:
      return f.template operator()<uint16_t, Conv::kBf16>();
    case DataType::kFloat:
      return f.template operator()<float, Conv::kFloat>();
    case DataType::kDouble:
      return f.template operator()<double, Conv::kFloat>();
  }
  return Status::Invalid("unknown data type");
}

}  // namespace

Status device_fill(void* buffer, const PatternSpec& spec, std::span<const Segment> segments, void* stream) {
  const Spec s = make_spec(spec);
  auto st = static_cast<cudaStream_t>(stream);
  return with_type(spec.dtype, [&]<typename S, Conv C>() -> Status {
    for (const Segment& seg : segments) {
      if (seg.count == 0) continue;
      S* at = static_cast<S*>(buffer) + seg.offset;
      const unsigned blocks = blocks_for(seg.count, sizeof(S));
      Status launch = Status::Ok();
      if (seg.src_rank >= 0) {  // a rank's input, of the spec's kind of values
        launch = with_kind<S, C>(s.params.kind, [&]<typename, Conv, pm::Kind K>() -> Status {
          fill_kernel<S, C, K, -1><<<blocks, kThreads, 0, st>>>(at, s, pm::rank_key(spec.seed, seg.src_rank),
                                                                seg.src_rank, seg.index_base, seg.count);
          return Status::Ok();
        });
      } else if (s.op < 0) {
        launch = Status::Invalid("device_fill: a reduced segment needs an operator");
      } else {  // the expected reduction
        launch = with_op(static_cast<ReduceOp>(s.op), [&]<ReduceOp Op>() -> Status {
          fill_kernel<S, C, pm::kind_of(Op), static_cast<int>(Op)>
              <<<blocks, kThreads, 0, st>>>(at, s, 0, seg.src_rank, seg.index_base, seg.count);
          return Status::Ok();
        });
      }
      FABSCOPE_RETURN_IF_ERROR(launch);
      FABSCOPE_RETURN_IF_ERROR(cuda_status(cudaGetLastError(), "fill kernel launch"));
    }
    return Status::Ok();
  });
}

Result<uint64_t> device_count_wrong(const void* buffer, const PatternSpec& spec, std::span<const Segment> segments,
                                    void* stream) {
  const Spec s = make_spec(spec);
  auto st = static_cast<cudaStream_t>(stream);
  auto kept = counter_of_this_thread();
  if (!kept.ok()) return kept.status();
  unsigned long long* counter = kept->device;
  Status launched = cuda_status(cudaMemsetAsync(counter, 0, sizeof(*counter), st), "counter reset");
  if (launched.ok()) {
    launched = with_type(spec.dtype, [&]<typename S, Conv C>() -> Status {
      for (const Segment& seg : segments) {
        if (seg.count == 0) continue;
        const S* at = static_cast<const S*>(buffer) + seg.offset;
        const unsigned blocks = blocks_for(seg.count, sizeof(S));
        Status launch = Status::Ok();
        if (seg.src_rank >= 0) {  // a rank's input, of the spec's kind of values
          launch = with_kind<S, C>(s.params.kind, [&]<typename, Conv, pm::Kind K>() -> Status {
            count_kernel<S, C, K, -1>
                <<<blocks, kThreads, 0, st>>>(at, s, seg.src_rank, seg.index_base, seg.count, counter);
            return Status::Ok();
          });
        } else if (s.op < 0) {
          launch = Status::Invalid("device_count_wrong: a reduced segment needs an operator");
        } else {  // the reduction: its kernel for the operator
          launch = with_op(static_cast<ReduceOp>(s.op), [&]<ReduceOp Op>() -> Status {
            count_kernel<S, C, pm::kind_of(Op), static_cast<int>(Op)>
                <<<blocks, kThreads, 0, st>>>(at, s, seg.src_rank, seg.index_base, seg.count, counter);
            return Status::Ok();
          });
        }
        FABSCOPE_RETURN_IF_ERROR(launch);
        FABSCOPE_RETURN_IF_ERROR(cuda_status(cudaGetLastError(), "verify kernel launch"));
      }
      return Status::Ok();
    });
  }
  Status copied = launched.ok()
                      ? cuda_status(cudaMemcpyAsync(kept->host, counter, sizeof(*counter), cudaMemcpyDeviceToHost, st),
                                    "count copy")
                      : launched;
  Status synced = cuda_status(cudaStreamSynchronize(st), "verify");
  for (const Status* x : {&copied, &synced}) {
    if (!x->ok()) return *x;
  }
  return static_cast<uint64_t>(*kept->host);
}

Status device_delay(uint64_t microseconds, void* stream) {
  delay_kernel<<<1, 1, 0, static_cast<cudaStream_t>(stream)>>>(static_cast<unsigned long long>(microseconds) * 1000ull);
  return cuda_status(cudaGetLastError(), "delay kernel launch");
}

}  // namespace fabscope::kernels
