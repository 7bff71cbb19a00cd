// Host memory: page-aligned buffers, filled and checked on the CPU.
#pragma once

#include "backend/backend.h"

namespace fabscope {

class HostMemory final : public Memory {
 public:
  std::string_view kind() const override { return "host"; }
  Result<void*> allocate(size_t bytes) override;
  void release(void* buffer) override;
  Status fill(void* buffer, const PatternSpec& spec, std::span<const Segment> segments) override;
  Result<uint64_t> count_wrong(const void* buffer, const PatternSpec& spec, std::span<const Segment> segments) override;
};

}  // namespace fabscope
