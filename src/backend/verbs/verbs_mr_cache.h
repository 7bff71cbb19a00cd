// Memory registration of the verbs transport: each buffer range is registered once
// (widened to whole pages) and reused by every later message inside it. The cache
// does not touch a device itself: it calls the registrar it was given (ibv_reg_mr in
// the transport, a fake in tests), so its lookups are testable anywhere.
//
// A registration pins the pages it covers; if a buffer is freed and its address range
// is reused by another allocation, its registration is stale. Whoever frees memory
// that was sent or received must call invalidate() first.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "core/status.h"

namespace fabscope {

struct VerbsMr {
  uint64_t addr = 0;  // first byte covered
  uint64_t bytes = 0;
  uint32_t lkey = 0;
  uint32_t rkey = 0;
  void* handle = nullptr;  // the registrar's (an ibv_mr*)
};

class VerbsMrCache {
 public:
  using Registrar = std::function<Result<VerbsMr>(uint64_t addr, uint64_t bytes)>;
  using Deregistrar = std::function<void(const VerbsMr&)>;
  static constexpr uint64_t kPageBytes = 4096;

  VerbsMrCache(Registrar reg, Deregistrar dereg) : reg_(std::move(reg)), dereg_(std::move(dereg)) {}
  ~VerbsMrCache() { clear(); }
  VerbsMrCache(const VerbsMrCache&) = delete;
  VerbsMrCache& operator=(const VerbsMrCache&) = delete;

  // A registration covering [buf, buf + bytes), registering the page-aligned range when
  // none does. Zero bytes need none: {lkey 0, rkey 0}.
  Result<VerbsMr> get(const void* buf, size_t bytes);
  // Forgets (and deregisters) every registration that overlaps the range.
  void invalidate(const void* buf, size_t bytes);
  void clear();

  size_t entries() const { return entries_.size(); }
  uint64_t registrations() const { return registrations_; }  // registrar calls that succeeded

 private:
  Registrar reg_;
  Deregistrar dereg_;
  std::vector<VerbsMr> entries_;  // few: fabscope registers a handful of long-lived buffers
  size_t last_hit_ = 0;
  uint64_t registrations_ = 0;
};

}  // namespace fabscope
