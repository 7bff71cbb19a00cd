#include "core/watchdog.h"

#include "core/clock.h"
#include "core/exit_code.h"

#include <fmt/format.h>
#include <chrono>
#include <cstdlib>

namespace fabscope {

Watchdog::Watchdog(double timeout_s, std::string prefix, std::FILE* out, PeerView peers)
    : timeout_s_(timeout_s),
      prefix_(std::move(prefix)),
      out_(out),
      peers_(std::move(peers)),
      last_beat_ns_(steady_now_ns()) {
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
    double idle_s = static_cast<double>(steady_now_ns() - last_beat_ns_.load(std::memory_order_relaxed)) * 1e-9;
    if (idle_s < timeout_s_) continue;
    std::string view = peers_ ? peers_() : std::string();
    if (view.empty()) view = "this rank waits on a peer that died or hangs, or on a stalled fabric";
    std::string msg = fmt::format("{} error: no progress for {:.0f} s (--timeout {:g}) in {}; {}. Ending the job.\n",
                                  prefix_, idle_s, timeout_s_, phase_, view);
    std::fputs(msg.c_str(), out_);
    std::fflush(out_);
    std::_Exit(kExitRuntime);
  }
}

}  // namespace fabscope
