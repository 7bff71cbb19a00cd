#include "core/watchdog.h"

#include "core/clock.h"
#include "core/exit_code.h"

#include <fmt/format.h>
#include <chrono>
#include <cstdlib>

namespace fabscope {

Watchdog::Watchdog(double timeout_s, std::string prefix, std::FILE* out, PeerView peers)
    : timeout_s_(timeout_s), prefix_(std::move(prefix)), out_(out), peers_(std::move(peers)) {
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

namespace {
std::mutex g_hook_mu;
std::function<void(const std::string&)> g_expire_hook;
}  // namespace

void Watchdog::set_expire_hook(std::function<void(const std::string& message)> hook) {
  std::lock_guard<std::mutex> lock(g_hook_mu);
  g_expire_hook = std::move(hook);
}

void Watchdog::watch() {
  // beat() only counts, so the last beat is known to within one period: a short period
  // keeps ranks whose beats stopped together firing together (within half a second at
  // most), before the launcher ends the job at the first one's exit.
  const auto period = std::chrono::duration<double>(std::min(0.25, timeout_s_ / 8));
  std::unique_lock<std::mutex> lock(mu_);
  uint64_t seen = beats_.load(std::memory_order_relaxed);
  int64_t seen_at_ns = steady_now_ns();
  while (!stop_) {
    cv_.wait_for(lock, period);
    if (stop_) return;
    const int64_t now = steady_now_ns();
    if (const uint64_t beats = beats_.load(std::memory_order_relaxed); beats != seen) {
      seen = beats;
      seen_at_ns = now;
      continue;
    }
    double idle_s = static_cast<double>(now - seen_at_ns) * 1e-9;
    if (idle_s < timeout_s_) continue;
    std::string view = peers_ ? peers_() : std::string();
    if (view.empty()) view = "this rank waits on a peer that died or hangs, or on a stalled fabric";
    std::string msg = fmt::format("{} error: no progress for {:.0f} s (--timeout {:g}) in {}; {}. Ending the job.\n",
                                  prefix_, idle_s, timeout_s_, phase_, view);
    std::fputs(msg.c_str(), out_);
    std::fflush(out_);
    std::function<void(const std::string&)> hook;
    {
      std::lock_guard<std::mutex> hook_lock(g_hook_mu);
      hook = g_expire_hook;
    }
    if (hook) {
      lock.unlock();
      hook(msg);
    }
    std::_Exit(kExitRuntime);
  }
}

}  // namespace fabscope
