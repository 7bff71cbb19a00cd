#include "core/stall_monitor.h"

#include <algorithm>
#include <chrono>

#include "core/clock.h"

namespace fabscope {

namespace {
constexpr int64_t kTickNs = 1'000'000;
}

StallMonitor::StallMonitor(int64_t threshold_ns) : threshold_ns_(threshold_ns), thread_([this] { watch(); }) {}

StallMonitor::~StallMonitor() {
  running_ = false;
  thread_.join();
}

void StallMonitor::watch() {
  int64_t prev = steady_now_ns();
  while (running_) {
    std::this_thread::sleep_for(std::chrono::nanoseconds(kTickNs));
    const int64_t now = steady_now_ns();
    if (now - prev > kTickNs + threshold_ns_) record(prev + kTickNs, now);
    prev = now;
  }
}

void StallMonitor::record(int64_t from_ns, int64_t to_ns) {
  std::lock_guard<std::mutex> lock(mu_);
  stalls_.emplace_back(from_ns, to_ns);
}

int64_t StallMonitor::stalled_ns(int64_t from_ns, int64_t to_ns) const {
  std::lock_guard<std::mutex> lock(mu_);
  // The first stall that ends after from_ns (stalls are recorded in time order).
  auto it = std::lower_bound(stalls_.begin(), stalls_.end(), from_ns,
                             [](const std::pair<int64_t, int64_t>& s, int64_t t) { return s.second <= t; });
  int64_t total = 0;
  for (; it != stalls_.end() && it->first < to_ns; ++it) {
    total += std::min(it->second, to_ns) - std::max(it->first, from_ns);
  }
  return total;
}

}  // namespace fabscope
