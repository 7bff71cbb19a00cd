// Fill and verify kernel bandwidth against a device-to-device copy on the same GPU:
// the kernels must not be what limits a sweep (target: at least 80% of the copy's
// bandwidth). Bandwidth is bytes written (fill), read (verify) or read+written
// (copy: 2x the size, as CUDA's bandwidthTest counts it) over the median of 20 timed
// runs, by CUDA events. Prints why and exits 0
// where no GPU is visible.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
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
  std::printf("# %s\n# %-10s %12s %14s %14s %14s %10s %10s\n", prop.name, "dtype", "bytes", "copy GB/s", "fill GB/s",
              "verify GB/s", "fill/copy", "verify/copy");
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
  for (DataType t : {DataType::kInt8, DataType::kHalf, DataType::kFloat, DataType::kDouble}) {
    PatternSpec s;
    s.dtype = t;
    s.nranks = 8;
    s.op = ReduceOp::kSum;
    const size_t count = bytes / element_size(t);
    const Segment fill_seg{0, count, 3, 0};
    const Segment check_seg{0, count, 3, 0};
    double fill_ms =
        median_ms([&] { (void)kernels::device_fill(a, s, std::span<const Segment>(&fill_seg, 1), nullptr); });
    double verify_ms =
        median_ms([&] { (void)kernels::device_count_wrong(a, s, std::span<const Segment>(&check_seg, 1), nullptr); });
    double fill_gbps = bytes / fill_ms / 1e6;
    double verify_gbps = bytes / verify_ms / 1e6;
    // All three are memory traffic over time: the copy reads and writes each byte, fill
    // writes it, verify reads it. At the same memory throughput the ratios are 1.
    std::printf("  %-10s %12zu %14.1f %14.1f %14.1f %10.2f %10.2f\n", std::string(name(t)).c_str(), bytes, copy_gbps,
                fill_gbps, verify_gbps, fill_gbps / copy_gbps, verify_gbps / copy_gbps);
  }
  cudaFree(a);
  cudaFree(b);
  return 0;
}
