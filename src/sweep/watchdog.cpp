#include "sweep/watchdog.h"

#include <fmt/format.h>
#include <chrono>
#include <cstdlib>

namespace fabscope {

Watchdog::Watchdog(double timeout_s, std::string prefix, int exit_code, std::FILE* out)
    : timeout_s_(timeout_s), prefix_(std::move(prefix)), exit_code_(exit_code), out_(out), last_beat_ns_(now_ns()) {
  if (timeout_s_ > 0) thread_ = std::thread([this] { watch(); });
}

Watchdog::~Watchdog() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

int64_t Watchdog::now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void Watchdog::set_phase(std::string phase) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    phase_ = std::move(phase);
  }
  beat();
}

void Watchdog::watch() {
  const auto period = std::chrono::duration<double>(std::min(1.0, timeout_s_ / 4));
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    cv_.wait_for(lock, period);
    if (stop_) return;
    double idle_s = static_cast<double>(now_ns() - last_beat_ns_.load(std::memory_order_relaxed)) * 1e-9;
    if (idle_s < timeout_s_) continue;
    std::string msg = fmt::format(
        "{} error: no progress for {:.0f} s (--timeout {:g}) in {}; this rank waits on a peer that died or hangs, or "
        "on a stalled fabric. Ending the job.\n",
        prefix_, idle_s, timeout_s_, phase_);
    std::fputs(msg.c_str(), out_);
    std::fflush(out_);
    std::_Exit(exit_code_);
  }
}

}  // namespace fabscope
