// Fill and verify kernel bandwidth against a device-to-device copy on the same GPU, for
// every data type, kind of values and reduction: the kernels must not be what limits a
// sweep (target: at least 80% of the copy's bandwidth). Bandwidth is bytes written (fill), read (verify) or
// read+written (copy: 2x the size, as CUDA's bandwidthTest counts it) over the median of 20 timed runs, by CUDA events.
// Prints why and exits 0 where no GPU is visible.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "kernels/device_pattern.h"

using namespace fabscope;

namespace {

template <typename F>
double median_ms(F&& f) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  f();  // warm up
  std::vector<double> ms;
  for (int i = 0; i < 20; ++i) {
    cudaEventRecord(a);
    f();
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float t = 0;
    cudaEventElapsedTime(&t, a, b);
    ms.push_back(t);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

}  // namespace

int main() {
  auto n = kernels::device_count();
  if (!n.ok()) {
    std::printf("kernel_bandwidth: skipped: %s\n", n.status().message().c_str());
    return 0;
  }
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  std::printf("# %s, %zu MiB buffers\n", prop.name, static_cast<size_t>(1) << 10);
  const size_t bytes = 1ull << 30;
  void* a = nullptr;
  void* b = nullptr;
  if (cudaMalloc(&a, bytes) != cudaSuccess || cudaMalloc(&b, bytes) != cudaSuccess) {
    std::printf("kernel_bandwidth: cannot allocate 2 GiB on the device\n");
    return 1;
  }
  double copy_ms = median_ms([&] { cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice); });
  // A copy reads and writes every byte.
  double copy_gbps = 2.0 * bytes / copy_ms / 1e6;
  // All are memory traffic over time: the copy reads and writes each byte, fill writes
  // it, verify reads it. At the same memory throughput the ratios are 1. Fill and verify
  // of one rank's input with each kind of values (sum, product, wide: no operator);
  // verify of the reduced result over kReducedRanks ranks for every operator.
  constexpr int kReducedRanks = 2;
  std::printf("# copy %.1f GB/s (read + written); ratios to it; reduced: the expected result over %d ranks\n",
              copy_gbps, kReducedRanks);
  std::printf("# %-9s %9s %9s %9s %9s %9s %9s %9s %9s %9s %9s\n", "dtype", "fill.sum", "fill.prod", "fill.wide",
              "chk.sum", "chk.wide", "red.sum", "red.prod", "red.min", "red.max", "red.avg");
  double worst = 1e9;
  for (DataType t : {DataType::kInt8, DataType::kUint8, DataType::kInt32, DataType::kUint32, DataType::kInt64,
                     DataType::kUint64, DataType::kHalf, DataType::kFloat, DataType::kDouble, DataType::kBfloat16}) {
    const size_t count = bytes / element_size(t);
    std::vector<double> ratios;
    auto spec = [&](std::optional<ReduceOp> op, int nranks) {
      PatternSpec s;
      s.dtype = t;
      s.nranks = nranks;
      s.op = op;
      return s;
    };
    auto ratio = [&](double ms) { return bytes / ms / 1e6 / copy_gbps; };
    const Segment input{0, count, 0, 0};
    const Segment reduced{0, count, kAllRanks, 0};
    for (std::optional<ReduceOp> op :
         {std::optional(ReduceOp::kSum), std::optional(ReduceOp::kProd), std::optional<ReduceOp>()}) {
      const PatternSpec s = spec(op, 8);
      ratios.push_back(
          ratio(median_ms([&] { (void)kernels::device_fill(a, s, std::span<const Segment>(&input, 1), nullptr); })));
    }
    // Each check reads what it expects (written first by device_fill), as in a run whose
    // data is right: a wrong element costs a floating type's check more (it is compared
    // as a number), and every element was wrong before this was so (issue 35).
    auto check = [&](const PatternSpec& s, const Segment& seg) -> double {
      if (!kernels::device_fill(a, s, std::span<const Segment>(&seg, 1), nullptr).ok()) return 0;
      const double r = ratio(
          median_ms([&] { (void)kernels::device_count_wrong(a, s, std::span<const Segment>(&seg, 1), nullptr); }));
      auto wrong = kernels::device_count_wrong(a, s, std::span<const Segment>(&seg, 1), nullptr);
      if (!wrong.ok() || *wrong != 0) {
        std::printf("kernel_bandwidth: %s: the check of what the fill wrote counted %s wrong\n",
                    std::string(name(t)).c_str(),
                    wrong.ok() ? std::to_string(*wrong).c_str() : wrong.status().message().c_str());
        return 0;
      }
      return r;
    };
    for (std::optional<ReduceOp> op : {std::optional(ReduceOp::kSum), std::optional<ReduceOp>()}) {
      ratios.push_back(check(spec(op, 8), input));
    }
    for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kProd, ReduceOp::kMin, ReduceOp::kMax, ReduceOp::kAvg}) {
      ratios.push_back(check(spec(op, kReducedRanks), reduced));
    }
    std::printf("  %-9s", std::string(name(t)).c_str());
    for (double r : ratios) {
      std::printf(" %9.2f", r);
      worst = std::min(worst, r);
    }
    std::printf("\n");
  }
  std::printf("# lowest ratio %.2f (target 0.80)\n", worst);
  cudaFree(a);
  cudaFree(b);
  return 0;
}
