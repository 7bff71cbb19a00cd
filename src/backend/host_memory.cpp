#include "backend/host_memory.h"

#include <fmt/format.h>
#include <cstdlib>
#include <cstring>

#include "core/sizes.h"

namespace fabscope {

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
