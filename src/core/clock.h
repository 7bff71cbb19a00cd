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
// The wall clock, nanoseconds since the Unix epoch (for UTC times in reports).
inline int64_t system_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}
// ISO 8601 UTC of a wall-clock time in nanoseconds since the epoch.
std::string utc_timestamp_ns(int64_t unix_ns);
inline double steady_now_s() { return std::chrono::duration<double>(SteadyClock::now().time_since_epoch()).count(); }

inline double seconds_between(SteadyClock::time_point a, SteadyClock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// Stamps for per-iteration samples inside timed loops, where a clock read is part of
// what is measured: the x86 time-stamp counter (about 11 ns a read on the development
// VM, where steady_clock's kvm-clock takes 27-30 ns) where it is invariant (constant
// and nonstop: the same rate in every power state and on every core), else the steady
// clock in nanoseconds. A loop converts its ticks with TickScale, calibrated against the
// steady clock over the loop itself, so no fixed rate is assumed.
#if defined(__x86_64__) || defined(__i386__)
inline int64_t tick_now() { return static_cast<int64_t>(__builtin_ia32_rdtsc()); }
#else
inline int64_t tick_now() { return steady_now_ns(); }
#endif
// Whether tick_now() is a usable clock here (read once, from /proc/cpuinfo's flags);
// where it is not, timed loops stamp with steady_now_ns().
bool ticks_invariant();
inline int64_t stamp_now(bool ticks) { return ticks ? tick_now() : steady_now_ns(); }

// Ticks to microseconds over one timed loop: both clocks read at its start and end.
struct TickScale {
  double us_per_tick = 1e-3;
  static TickScale calibrate(int64_t ticks, int64_t ns) {
    TickScale s;
    s.us_per_tick = ticks > 0 ? static_cast<double>(ns) * 1e-3 / static_cast<double>(ticks) : 1e-3;
    return s;
  }
  double us(int64_t ticks) const { return static_cast<double>(ticks) * us_per_tick; }
};

// ISO 8601 UTC with milliseconds, e.g. "2026-11-22T07:28:32.123Z".
std::string utc_timestamp(std::chrono::system_clock::time_point t = std::chrono::system_clock::now());

}  // namespace fabscope
