#include "backend/host_memory.h"

#include <fmt/format.h>
#include <cstdlib>
#include <cstring>

#include <cstdio>

#include "core/atomic_file.h"
#include "core/sizes.h"

namespace fabscope {

std::optional<uint64_t> mem_available_bytes(const std::string& meminfo) {
  size_t pos = meminfo.find("MemAvailable:");
  if (pos == std::string::npos) return std::nullopt;
  unsigned long long kib = 0;
  if (std::sscanf(meminfo.c_str() + pos, "MemAvailable: %llu kB", &kib) != 1) return std::nullopt;
  return static_cast<uint64_t>(kib) * 1024;
}

std::optional<uint64_t> vm_hwm_bytes(const std::string& status) {
  size_t pos = status.find("VmHWM:");
  if (pos == std::string::npos) return std::nullopt;
  unsigned long long kib = 0;
  if (std::sscanf(status.c_str() + pos, "VmHWM: %llu kB", &kib) != 1) return std::nullopt;
  return static_cast<uint64_t>(kib) * 1024;
}

std::optional<uint64_t> peak_rss_bytes() {
  auto status = read_file("/proc/self/status");
  if (!status.ok()) return std::nullopt;
  return vm_hwm_bytes(*status);
}

Status HostMemory::check_capacity(uint64_t bytes_per_rank, int ranks_here) const {
  auto meminfo = read_file("/proc/meminfo");
  if (!meminfo.ok()) return Status::Ok();  // not Linux: nothing to check against
  auto avail = mem_available_bytes(*meminfo);
  if (!avail) return Status::Ok();
  const uint64_t need = bytes_per_rank * static_cast<uint64_t>(ranks_here);
  if (need <= *avail / 10 * 9) return Status::Ok();
  return Status::Invalid(
      fmt::format("{} of host memory per rank, {} for the {} ranks on this node, but only {} is available",
                  format_capacity(bytes_per_rank), format_capacity(need), ranks_here, format_capacity(*avail)));
}

Result<void*> HostMemory::allocate(size_t bytes) {
  constexpr size_t kAlign = 4096;
  size_t rounded = ((bytes == 0 ? 1 : bytes) + kAlign - 1) / kAlign * kAlign;
  void* p = std::aligned_alloc(kAlign, rounded);
  if (p == nullptr) {
    return Status::Runtime(fmt::format("cannot allocate {} of host memory", format_size(rounded)));
  }
  std::memset(p, 0, rounded);  // touch every page now, not inside a timed loop
  return p;
}

void HostMemory::release(void* buffer) { std::free(buffer); }

Status HostMemory::fill(void* buffer, const PatternSpec& spec, std::span<const Segment> segments) {
  host_fill(buffer, spec, segments);
  return Status::Ok();
}

Result<uint64_t> HostMemory::count_wrong(const void* buffer, const PatternSpec& spec,
                                         std::span<const Segment> segments) {
  return host_count_wrong(buffer, spec, segments);
}

}  // namespace fabscope
