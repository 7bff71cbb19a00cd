#include "backend/verbs/verbs_mr_cache.h"

#include <fmt/format.h>

namespace fabscope {

namespace {
bool contains(const VerbsMr& m, uint64_t addr, uint64_t bytes) {
  return addr >= m.addr && addr - m.addr <= m.bytes && bytes <= m.bytes - (addr - m.addr);
}
bool overlaps(const VerbsMr& m, uint64_t addr, uint64_t bytes) {
  return addr < m.addr + m.bytes && m.addr < addr + bytes;
}
}  // namespace

Result<VerbsMr> VerbsMrCache::get(const void* buf, size_t bytes) {
  if (bytes == 0) return VerbsMr{};
  const auto addr = reinterpret_cast<uint64_t>(buf);
  if (addr + bytes < addr) return Status::Invalid(fmt::format("verbs: buffer at {:#x} of {} bytes wraps", addr, bytes));
  if (last_hit_ < entries_.size() && contains(entries_[last_hit_], addr, bytes)) return entries_[last_hit_];
  for (size_t i = 0; i < entries_.size(); ++i) {
    if (contains(entries_[i], addr, bytes)) {
      last_hit_ = i;
      return entries_[i];
    }
  }
  // Register whole pages. Registrations this one overlaps stay: work requests in
  // flight may still use their keys.
  const uint64_t first = addr / kPageBytes * kPageBytes;
  const uint64_t end = (addr + bytes + kPageBytes - 1) / kPageBytes * kPageBytes;
  auto mr = reg_(first, end - first);
  if (!mr.ok()) return mr.status();
  ++registrations_;
  entries_.push_back(*mr);
  last_hit_ = entries_.size() - 1;
  return *mr;
}

void VerbsMrCache::invalidate(const void* buf, size_t bytes) {
  const auto addr = reinterpret_cast<uint64_t>(buf);
  std::vector<VerbsMr> keep;
  for (const VerbsMr& m : entries_) {
    if (bytes > 0 && overlaps(m, addr, bytes)) {
      dereg_(m);
    } else {
      keep.push_back(m);
    }
  }
  entries_ = std::move(keep);
  last_hit_ = 0;
}

void VerbsMrCache::clear() {
  for (const VerbsMr& m : entries_) dereg_(m);
  entries_.clear();
  last_hit_ = 0;
}

}  // namespace fabscope
