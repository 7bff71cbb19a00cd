// What the nccl backend offers on a rank's GPU besides NCCL itself: GPU memory,
// filled and checked there by fabscope's kernels, and the CUDA events that time each
// iteration on the communicator's stream.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "backend/backend.h"
#include "backend/nccl/nccl_comm.h"

namespace fabscope {

// GPU memory of this rank's device, filled and checked there by fabscope's kernels.
// Allocated by ncclMemAlloc where the NCCL loaded has it (2.19 and later), as nccl-tests
// allocates: NCCL's path for a buffer depends on how it was allocated (cuMem memory can be
// registered for NVLS and zero-copy, and its calls cost the host differently), so that a
// fabscope figure and an nccl-tests figure are of the same path; cudaMalloc otherwise.
class GpuMemory final : public Memory {
 public:
  explicit GpuMemory(NcclComm& comm) : comm_(comm) {}
  std::string_view kind() const override { return "cuda"; }

  Status check_capacity(uint64_t bytes_per_rank, int /*ranks_here: one GPU each*/) const override;
  Result<void*> allocate(size_t bytes) override;
  void release(void* buffer) override;
  Status fill(void* buffer, const PatternSpec& spec, std::span<const Segment> segments) override;
  Result<uint64_t> count_wrong(const void* buffer, const PatternSpec& spec, std::span<const Segment> segments) override;

 private:
  NcclComm& comm_;
  std::unordered_set<void*> nccl_allocated_;  // by ncclMemAlloc: freed by ncclMemFree
};

// CUDA events recorded on the stream: the device time of each iteration.
class CudaEventClock final : public IterationClock {
 public:
  explicit CudaEventClock(cudaStream_t stream) : stream_(stream) {}
  ~CudaEventClock() override;
  IterationTimer kind() const override { return IterationTimer::kCudaEvent; }
  Status reset(size_t count) override;
  Status mark(size_t index) override;
  Result<double> elapsed_us(size_t from, size_t to) override;

 private:
  cudaStream_t stream_;
  std::vector<cudaEvent_t> events_;
};

}  // namespace fabscope
