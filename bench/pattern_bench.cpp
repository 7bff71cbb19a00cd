// Throughput of fabscope's host pattern code, which the sweep runs around (never
// inside) its timed loops: host_fill writes one rank's input before each measurement,
// host_count_wrong checks each verification pass. One 16 MiB buffer, as 4 ranks see it
// in an allreduce: the input is one rank's pattern; the expected output is the sum over
// all ranks (src_rank kAllRanks), which recomputes every rank's value per element.
//
//   fabscope_bench_pattern [--benchmark_filter=REGEX]

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <span>

#include "coll/layout.h"
#include "coll/pattern.h"
#include "core/dtype.h"

namespace {

constexpr size_t kBytes = 16u << 20;
constexpr int kRanks = 4;
constexpr int kRank = 1;  // the rank whose input is filled or checked
constexpr uint64_t kSeed = 0x5eed;

fabscope::PatternSpec spec(fabscope::DataType dtype) {
  return fabscope::PatternSpec{dtype, fabscope::ReduceOp::kSum, kSeed, kRanks};
}

size_t element_count(fabscope::DataType dtype) { return kBytes / fabscope::element_size(dtype); }

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};
using Buffer = std::unique_ptr<char, FreeDeleter>;

Buffer make_buffer() {
  constexpr size_t kAlign = 4096;
  return Buffer(static_cast<char*>(std::aligned_alloc(kAlign, kBytes)));
}

void set_bytes(benchmark::State& state) {
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(kBytes));
}

// Writes one rank's allreduce input: one segment over the whole buffer.
void BM_HostFill(benchmark::State& state, fabscope::DataType dtype) {
  Buffer buf = make_buffer();
  const fabscope::Segment seg{0, element_count(dtype), kRank, 0};
  const fabscope::PatternSpec s = spec(dtype);
  for (auto _ : state) {
    fabscope::host_fill(buf.get(), s, std::span<const fabscope::Segment>(&seg, 1));
    benchmark::DoNotOptimize(buf.get());
    benchmark::ClobberMemory();
  }
  set_bytes(state);
}

// Checks a buffer holding one rank's values (as after allgather or broadcast).
void BM_CountWrongOneRank(benchmark::State& state, fabscope::DataType dtype) {
  Buffer buf = make_buffer();
  const fabscope::Segment seg{0, element_count(dtype), kRank, 0};
  const fabscope::PatternSpec s = spec(dtype);
  fabscope::host_fill(buf.get(), s, std::span<const fabscope::Segment>(&seg, 1));
  uint64_t wrong = 0;
  for (auto _ : state) {
    wrong = fabscope::host_count_wrong(buf.get(), s, std::span<const fabscope::Segment>(&seg, 1));
    benchmark::DoNotOptimize(wrong);
  }
  if (wrong != 0) state.SkipWithError("the filled buffer does not match its own pattern");
  set_bytes(state);
}

// Checks an allreduce result: every element is the sum of all ranks' values, which
// the checker recomputes from every rank's pattern. The buffer holds the correct sum
// (built once from each rank's filled input), so every element takes the full path.
void BM_CountWrongAllRanks(benchmark::State& state, fabscope::DataType dtype) {
  const size_t n = element_count(dtype);
  const fabscope::PatternSpec s = spec(dtype);
  Buffer buf = make_buffer();
  Buffer input = make_buffer();
  for (int r = 0; r < kRanks; ++r) {
    const fabscope::Segment in{0, n, r, 0};
    fabscope::host_fill(input.get(), s, std::span<const fabscope::Segment>(&in, 1));
    if (dtype == fabscope::DataType::kFloat) {
      float* out = reinterpret_cast<float*>(buf.get());
      const float* v = reinterpret_cast<const float*>(input.get());
      for (size_t i = 0; i < n; ++i) out[i] = r == 0 ? v[i] : out[i] + v[i];  // small integers: exact
    } else {
      uint32_t* out = reinterpret_cast<uint32_t*>(buf.get());
      const uint32_t* v = reinterpret_cast<const uint32_t*>(input.get());
      for (size_t i = 0; i < n; ++i) out[i] = r == 0 ? v[i] : out[i] + v[i];  // wraps, as int32 sum does
    }
  }
  const fabscope::Segment expected{0, n, fabscope::kAllRanks, 0};
  uint64_t wrong = 0;
  for (auto _ : state) {
    wrong = fabscope::host_count_wrong(buf.get(), s, std::span<const fabscope::Segment>(&expected, 1));
    benchmark::DoNotOptimize(wrong);
  }
  if (wrong != 0) state.SkipWithError("the reduced buffer does not match the expected values");
  set_bytes(state);
}

BENCHMARK_CAPTURE(BM_HostFill, float_sum, fabscope::DataType::kFloat)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_HostFill, int32_sum, fabscope::DataType::kInt32)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_CountWrongOneRank, float_sum, fabscope::DataType::kFloat)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_CountWrongOneRank, int32_sum, fabscope::DataType::kInt32)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_CountWrongAllRanks, float_sum, fabscope::DataType::kFloat)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_CountWrongAllRanks, int32_sum, fabscope::DataType::kInt32)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
