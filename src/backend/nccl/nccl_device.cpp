#include "backend/nccl/nccl_device.h"

#include <fmt/format.h>

#include "backend/nccl/nccl_util.h"
#include "core/sizes.h"
#include "kernels/device_pattern.h"

// ncclMemAlloc and ncclMemFree (NCCL 2.19), weak as the newer collectives are
// (nccl_backend.cpp): null where the NCCL loaded at run time lacks them.
#pragma weak ncclMemAlloc
#pragma weak ncclMemFree

namespace fabscope {

Status GpuMemory::check_capacity(uint64_t bytes_per_rank, int /*ranks_here: one GPU each*/) const {
  size_t free_bytes = 0;
  size_t total = 0;
  FABSCOPE_RETURN_IF_ERROR(cuda_check(cudaMemGetInfo(&free_bytes, &total), "cudaMemGetInfo"));
  // NCCL allocates its own buffers after ours; a tenth is left for it.
  if (bytes_per_rank <= free_bytes / 10 * 9) return Status::Ok();
  return Status::Invalid(fmt::format("{} of GPU memory per rank, but GPU {} ({}) of {} has {} free of {}",
                                     format_capacity(bytes_per_rank), comm_.device(), comm_.device_name(),
                                     comm_.where(), format_capacity(free_bytes), format_capacity(total)));
}

Result<void*> GpuMemory::allocate(size_t bytes) {
  void* p = nullptr;
  const size_t n = bytes == 0 ? 1 : bytes;
  // ncclMemAlloc where the NCCL loaded has it; cudaMalloc where it has not, or where it
  // fails (a device or driver without cuMem's allocations).
  if (ncclMemAlloc != nullptr && ncclMemFree != nullptr && ncclMemAlloc(&p, n) == ncclSuccess) {
    nccl_allocated_.insert(p);
  } else {
    p = nullptr;
    cudaError_t e = cudaMalloc(&p, n);
    if (e != cudaSuccess) {
      return Status::Runtime(fmt::format("cannot allocate {} on GPU {} of {}: {}", format_size(n), comm_.device(),
                                         comm_.where(), cuda_text(e)));
    }
  }
  cudaError_t e = cudaMemset(p, 0, n);
  if (e != cudaSuccess) {
    release(p);
    return cuda_check(e, "cudaMemset");
  }
  return p;
}

void GpuMemory::release(void* buffer) {
  if (nccl_allocated_.erase(buffer) > 0) {
    ncclMemFree(buffer);
  } else {
    cudaFree(buffer);
  }
}

Status GpuMemory::fill(void* buffer, const PatternSpec& spec, std::span<const Segment> segments) {
  return kernels::device_fill(buffer, spec, segments, comm_.stream());
}

Result<uint64_t> GpuMemory::count_wrong(const void* buffer, const PatternSpec& spec,
                                        std::span<const Segment> segments) {
  return kernels::device_count_wrong(buffer, spec, segments, comm_.stream());
}

CudaEventClock::~CudaEventClock() {
  for (cudaEvent_t e : events_) cudaEventDestroy(e);
}

Status CudaEventClock::reset(size_t count) {
  while (events_.size() < count) {
    cudaEvent_t e = nullptr;
    FABSCOPE_RETURN_IF_ERROR(cuda_check(cudaEventCreate(&e), "cudaEventCreate"));
    events_.push_back(e);
  }
  return Status::Ok();
}

Status CudaEventClock::mark(size_t index) {
  if (index >= events_.size()) return Status::Runtime(fmt::format("event marker {} was not reserved", index));
  return cuda_check(cudaEventRecord(events_[index], stream_), "cudaEventRecord");
}

Result<double> CudaEventClock::elapsed_us(size_t from, size_t to) {
  if (from >= events_.size() || to >= events_.size()) {
    return Status::Runtime(fmt::format("event markers {} and {} were not reserved", from, to));
  }
  float ms = 0;
  FABSCOPE_RETURN_IF_ERROR(cuda_check(cudaEventElapsedTime(&ms, events_[from], events_[to]), "cudaEventElapsedTime"));
  return static_cast<double>(ms) * 1e3;
}

}  // namespace fabscope
