// Monotonic time for measurements, and wall-clock time stamps for reports.
#pragma once

#include <chrono>
#include <string>

namespace fabscope {

using SteadyClock = std::chrono::steady_clock;

inline double seconds_between(SteadyClock::time_point a, SteadyClock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// ISO 8601 UTC with milliseconds, e.g. "2026-11-22T07:28:32.123Z".
std::string utc_timestamp(std::chrono::system_clock::time_point t = std::chrono::system_clock::now());

}  // namespace fabscope
