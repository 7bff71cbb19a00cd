// Ends the job when a rank makes no progress for too long: a rank that died or hangs,
// or a stalled fabric, must not hang fabscope. The measuring thread calls beat() after
// every completed operation (a plain store of a counter: no clock read, no locked
// instruction, as it sits in timed loops) and says what it is doing with
// set_phase(); a background thread checks, and on expiry prints what stopped, on which
// rank, and exits the process with kExitRuntime (4), which makes the launcher end every
// rank. sweep and p2p both run under one.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "core/clock.h"

namespace fabscope {

class Watchdog {
 public:
  // What this rank knows of the others when it fires: which rank stopped answering
  // (RankContext::peer_view()); "" when it knows nothing.
  using PeerView = std::function<std::string()>;
  // timeout_s <= 0 disables it. `prefix` names the rank in the message ("[r3 node07]").
  Watchdog(double timeout_s, std::string prefix, std::FILE* out = stderr, PeerView peers = {});
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  // From the measuring thread only (its single writer). The checking thread notes the
  // time it first sees a new count, so progress is known within one check period.
  void beat() { beats_.store(beats_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed); }
  void set_phase(std::string phase);
  // Called on the watchdog's thread of whichever watchdog expires in this process, with
  // its message, before the process ends (rank 0 writes the report so far). Process-wide;
  // an empty function removes it.
  static void set_expire_hook(std::function<void(const std::string& message)> hook);

 private:
  void watch();

  double timeout_s_;
  std::string prefix_;
  std::FILE* out_;
  PeerView peers_;
  std::atomic<uint64_t> beats_{0};
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::string phase_ = "start-up";
  std::thread thread_;
};

}  // namespace fabscope
