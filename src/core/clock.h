// Monotonic time for measurements, and wall-clock time stamps for reports.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace fabscope {

using SteadyClock = std::chrono::steady_clock;

// The steady clock's reading in nanoseconds and in seconds: the one "now" that timings,
// timeouts and watchdogs compare against.
inline int64_t steady_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(SteadyClock::now().time_since_epoch()).count();
}
inline double steady_now_s() { return std::chrono::duration<double>(SteadyClock::now().time_since_epoch()).count(); }

inline double seconds_between(SteadyClock::time_point a, SteadyClock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// ISO 8601 UTC with milliseconds, e.g. "2026-11-22T07:28:32.123Z".
std::string utc_timestamp(std::chrono::system_clock::time_point t = std::chrono::system_clock::now());

}  // namespace fabscope
