// Notices when this process did not run. A thread sleeps 1 ms at a time; a wake-up later
// than that by more than the threshold means the whole process was held: stopped
// (SIGSTOP, a debugger), frozen (cgroup freezer), or starved of CPU. From inside, such a
// process cannot tell its own pause from waiting for others; this record can, so a
// rank stopped in the middle of a collective is seen as the straggler it is.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace fabscope {

class StallMonitor {
 public:
  explicit StallMonitor(int64_t threshold_ns = 4'000'000);
  ~StallMonitor();
  StallMonitor(const StallMonitor&) = delete;
  StallMonitor& operator=(const StallMonitor&) = delete;

  // Nanoseconds of [from_ns, to_ns] (steady clock) in which the process was seen held.
  int64_t stalled_ns(int64_t from_ns, int64_t to_ns) const;

  // For tests: records a stall as the thread would.
  void record(int64_t from_ns, int64_t to_ns);

 private:
  void watch();
  int64_t threshold_ns_;
  std::atomic<bool> running_{true};
  mutable std::mutex mu_;
  std::vector<std::pair<int64_t, int64_t>> stalls_;  // in time order
  std::thread thread_;
};

}  // namespace fabscope
