#include <cuda_runtime.h>
#include <fmt/format.h>

#include "kernels/device_pattern.h"

namespace fabscope::kernels {

Result<int> device_count() {
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    return Status::Unavailable(
        fmt::format("no usable CUDA device: {} ({})", cudaGetErrorString(e), cudaGetErrorName(e)));
  }
  if (n == 0) return Status::Unavailable("no CUDA device is visible (CUDA_VISIBLE_DEVICES may hide them)");
  return n;
}

}  // namespace fabscope::kernels
