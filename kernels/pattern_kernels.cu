// The pattern kernels: one thread per element (grid-stride), the host's arithmetic
// from coll/pattern_math.h, per-block sums of mismatches folded into one counter.
#include <cuda_runtime.h>
#include <string>

#include "coll/pattern_math.h"
#include "kernels/device_pattern.h"

namespace fabscope::kernels {

namespace pm = pattern_math;

namespace {

// Storage conversions, as the host's TypeOps: 16-bit floats are stored as bits.
enum class Conv { kInt, kFloat, kHalf, kBf16 };

template <typename S, Conv C>
struct DevOps {
  // A generated number (int64_t) or a folded result (double) as an element.
  template <typename V>
  __device__ static S from_number(V v) {
    if constexpr (C == Conv::kHalf) {
      return pm::float_to_half_bits(static_cast<float>(v));
    } else if constexpr (C == Conv::kBf16) {
      return pm::float_to_bfloat16_bits(static_cast<float>(v));
    } else {
      return static_cast<S>(v);
    }
  }
  __device__ static double to_double(S v) {
    if constexpr (C == Conv::kHalf) {
      return pm::half_bits_to_float(v);
    } else if constexpr (C == Conv::kBf16) {
      return pm::bfloat16_bits_to_float(v);
    } else {
      return static_cast<double>(v);
    }
  }
  __device__ static S divide(S v, int n) {
    if constexpr (C == Conv::kHalf) {
      return pm::divide_half_bits(v, n);
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

template <typename S, Conv C>
__device__ S value_at(const Spec& s, uint64_t key, int rank, uint64_t index) {
  return DevOps<S, C>::from_number(pm::number(s.params, key, rank, index));
}

// The reduction over every rank, folded as the host folds it (pattern_math.h).
template <typename S, Conv C>
__device__ S reduced_at(const Spec& s, uint64_t index) {
  using Ops = DevOps<S, C>;
  const ReduceOp op = static_cast<ReduceOp>(s.op);
  if constexpr (C != Conv::kInt) {
    pm::FloatFold fold(op);
    for (int r = 0; r < s.nranks; ++r) fold.add(Ops::to_double(value_at<S, C>(s, pm::rank_key(s.seed, r), r, index)));
    S result = Ops::from_number(fold.result());
    if (op == ReduceOp::kAvg) result = Ops::divide(result, s.nranks);
    return result;
  } else {
    pm::IntFold<S> fold(op);
    for (int r = 0; r < s.nranks; ++r) fold.add(value_at<S, C>(s, pm::rank_key(s.seed, r), r, index));
    S acc = fold.result();
    if (op == ReduceOp::kAvg) acc = Ops::divide(acc, s.nranks);
    return acc;
  }
}

template <typename S, Conv C>
__device__ bool equal_at(const Spec& s, S got, S want) {
  if constexpr (C == Conv::kInt) {
    return got == want;
  } else {
    if (DevOps<S, C>::to_double(got) == DevOps<S, C>::to_double(want)) return true;
    if (s.op != static_cast<int>(ReduceOp::kAvg)) return false;
    return pm::ulp_distance(DevOps<S, C>::ordered(got), DevOps<S, C>::ordered(want)) <= pm::kAverageUlps;
  }
}

template <typename S, Conv C>
__global__ void fill_kernel(S* out, Spec s, uint64_t key, int rank, uint64_t index_base, size_t count) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    out[i] = value_at<S, C>(s, key, rank, index_base + i);
  }
}

constexpr int kThreads = 256;

template <typename S, Conv C>
__global__ void count_kernel(const S* in, Spec s, int src_rank, uint64_t index_base, size_t count,
                             unsigned long long* wrong) {
  __shared__ unsigned long long block_sum[kThreads];
  unsigned long long mine = 0;
  const uint64_t key = src_rank >= 0 ? pm::rank_key(s.seed, src_rank) : 0;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    S want = src_rank >= 0 ? value_at<S, C>(s, key, src_rank, index_base + i) : reduced_at<S, C>(s, index_base + i);
    mine += equal_at<S, C>(s, in[i], want) ? 0 : 1;
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

unsigned blocks_for(size_t count) {
  size_t b = (count + kThreads - 1) / kThreads;
  return static_cast<unsigned>(b < 1 ? 1 : (b > 8192 ? 8192 : b));
}

Spec make_spec(const PatternSpec& p) {
  return Spec{pm::params_for(p.dtype, p.op, p.seed, p.nranks), p.seed, p.nranks, p.op ? static_cast<int>(*p.op) : -1};
}

// Calls f.template operator()<S, C>() for the spec's storage type.
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
      if (seg.src_rank < 0) return Status::Invalid("device_fill: an input segment must name its rank");
      fill_kernel<S, C><<<blocks_for(seg.count), kThreads, 0, st>>>(static_cast<S*>(buffer) + seg.offset, s,
                                                                    pm::rank_key(spec.seed, seg.src_rank), seg.src_rank,
                                                                    seg.index_base, seg.count);
      FABSCOPE_RETURN_IF_ERROR(cuda_status(cudaGetLastError(), "fill kernel launch"));
    }
    return Status::Ok();
  });
}

Result<uint64_t> device_count_wrong(const void* buffer, const PatternSpec& spec, std::span<const Segment> segments,
                                    void* stream) {
  const Spec s = make_spec(spec);
  auto st = static_cast<cudaStream_t>(stream);
  unsigned long long* counter = nullptr;
  FABSCOPE_RETURN_IF_ERROR(
      cuda_status(cudaMallocAsync(reinterpret_cast<void**>(&counter), sizeof(*counter), st), "counter allocation"));
  Status launched = cuda_status(cudaMemsetAsync(counter, 0, sizeof(*counter), st), "counter reset");
  if (launched.ok()) {
    launched = with_type(spec.dtype, [&]<typename S, Conv C>() -> Status {
      for (const Segment& seg : segments) {
        if (seg.count == 0) continue;
        count_kernel<S, C><<<blocks_for(seg.count), kThreads, 0, st>>>(
            static_cast<const S*>(buffer) + seg.offset, s, seg.src_rank, seg.index_base, seg.count, counter);
        FABSCOPE_RETURN_IF_ERROR(cuda_status(cudaGetLastError(), "verify kernel launch"));
      }
      return Status::Ok();
    });
  }
  unsigned long long wrong = 0;
  Status copied =
      launched.ok()
          ? cuda_status(cudaMemcpyAsync(&wrong, counter, sizeof(wrong), cudaMemcpyDeviceToHost, st), "count copy")
          : launched;
  Status freed = cuda_status(cudaFreeAsync(counter, st), "counter free");
  Status synced = cuda_status(cudaStreamSynchronize(st), "verify");
  for (const Status* x : {&copied, &freed, &synced}) {
    if (!x->ok()) return *x;
  }
  return static_cast<uint64_t>(wrong);
}

Status device_delay(uint64_t microseconds, void* stream) {
  delay_kernel<<<1, 1, 0, static_cast<cudaStream_t>(stream)>>>(static_cast<unsigned long long>(microseconds) * 1000ull);
  return cuda_status(cudaGetLastError(), "delay kernel launch");
}

}  // namespace fabscope::kernels
