// Host memory: page-aligned buffers, filled and checked on the CPU.
#pragma once

#include <optional>
#include <string>

#include "backend/backend.h"

namespace fabscope {

// MemAvailable from a /proc/meminfo text, in bytes; nullopt when absent.
std::optional<uint64_t> mem_available_bytes(const std::string& meminfo);
// VmHWM (the peak resident set) from a /proc/PID/status text, in bytes; nullopt when absent.
std::optional<uint64_t> vm_hwm_bytes(const std::string& status);
// This process's peak resident set so far; nullopt where /proc does not say.
std::optional<uint64_t> peak_rss_bytes();
// What a rank uses before any buffer (libraries, MPI, sockets: about 20 MiB measured
// with Open MPI 4.1), with room: part of every host memory estimate.
inline constexpr uint64_t kRankBaseBytes = uint64_t{64} << 20;

class HostMemory final : public Memory {
 public:
  std::string_view kind() const override { return "host"; }
  Status check_capacity(uint64_t bytes_per_rank, int ranks_here) const override;
  Result<void*> allocate(size_t bytes) override;
  void release(void* buffer) override;
  Status fill(void* buffer, const PatternSpec& spec, std::span<const Segment> segments) override;
  Result<uint64_t> count_wrong(const void* buffer, const PatternSpec& spec, std::span<const Segment> segments) override;
};

}  // namespace fabscope
