// Wall-clock time in a state: the length of the union of the intervals that the steps
// and channels of a call spent in it, so that steps in flight together count once and the
// figure never exceeds the time they took (a sum over concurrent steps does: 8 steps in
// flight on 4 channels is 32 times the wall time).
//
// union_length_ns is the definition, over intervals known afterwards. BusyClock computes
// the same online, as the plugin's events arrive, without storing them and without a lock:
// one word holds how many intervals are open and when the first of them opened; the time
// is added when the last one closes. The plugin (src/nccl_profiler/plugin.cpp) keeps one
// per (call key, peer, direction, channel, state) and one per (call key, peer, direction,
// state) across its channels.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace fabscope::ncclprof {

struct Interval {
  uint64_t start = 0;  // [start, end), in ns
  uint64_t end = 0;
};

// The length of the union of `v`'s intervals; an empty or reversed one adds nothing.
inline uint64_t union_length_ns(std::vector<Interval> v) {
  std::sort(v.begin(), v.end(), [](const Interval& a, const Interval& b) { return a.start < b.start; });
  uint64_t total = 0, open = 0, close = 0;
  bool any = false;
  for (const Interval& i : v) {
    if (i.end <= i.start) continue;
    if (any && i.start <= close) {
      close = std::max(close, i.end);
      continue;
    }
    if (any) total += close - open;
    open = i.start;
    close = i.end;
    any = true;
  }
  return any ? total + (close - open) : 0;
}

// The word: the open intervals' count in the top 16 bits, the low 48 bits of the time the
// first of them opened below (2^48 ns is 78 hours: a busy span shorter than that is
// measured right across the wrap).
struct BusyClock {
  static constexpr int kTimeBits = 48;
  static constexpr uint64_t kTimeMask = (uint64_t{1} << kTimeBits) - 1;
  static constexpr uint64_t kOne = uint64_t{1} << kTimeBits;

  // An interval opens at `t`.
  static void enter(uint64_t* word, uint64_t t) {
    uint64_t old = __atomic_load_n(word, __ATOMIC_RELAXED);
    uint64_t next;
    do {
      if ((old >> kTimeBits) == 0xffff) return;  // 65535 open: not counted (cannot happen: 64 channels x 8 steps)
      next = (old >> kTimeBits) == 0 ? kOne | (t & kTimeMask) : old + kOne;
    } while (!__atomic_compare_exchange_n(word, &old, next, true, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED));
  }
  // An interval closes at `t`: the busy time that ends with it (when it was the last one
  // open), else 0. A `t` before the opening (another thread's clock read a little earlier)
  // adds nothing.
  static uint64_t leave(uint64_t* word, uint64_t t) {
    uint64_t old = __atomic_load_n(word, __ATOMIC_RELAXED);
    uint64_t next, added;
    do {
      const uint64_t open = old >> kTimeBits;
      if (open == 0) return 0;  // not counted when it opened
      added = 0;
      next = old - kOne;
      if (open == 1) {
        const uint64_t d = (t - old) & kTimeMask;
        added = d < (uint64_t{1} << (kTimeBits - 1)) ? d : 0;
        next = 0;
      }
    } while (!__atomic_compare_exchange_n(word, &old, next, true, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED));
    return added;
  }
};

}  // namespace fabscope::ncclprof
