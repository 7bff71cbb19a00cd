// Who is still there when a job stops progressing. Every rank's heartbeat thread sends
// a small UDP datagram to rank 0 every period; rank 0 sends one to every rank with the
// ranks it has not heard from lately. A process that is stopped (SIGSTOP, a frozen
// cgroup), dead or cut off sends nothing, so when the watchdog fires, every surviving
// rank can name the silent one and its host, whichever rank it is (rank 0's silence is
// seen by all). A rank's datagram to rank 0 also says what its measuring thread waits on
// (core/wait_note.h), so rank 0's hang message names each survivor's peer, link and open
// message; ranks other than 0 also beat to their neighbours (rank r to r-1 and r+1, rank 0
// aside), so that a rank that stops hearing rank 0 knows whether it is itself cut off.
// Datagrams carry a random job nonce from rank 0 and are taken only from the peers' own
// endpoints, exchanged over MPI at the start.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "comm/context.h"
#include "core/status.h"

namespace fabscope {

class Heartbeat {
 public:
  // Collective over `ctx`: binds a UDP socket on `address` (IPv4, this rank's) and
  // exchanges every rank's endpoint. `period_s` is the time between datagrams.
  static Result<std::unique_ptr<Heartbeat>> start(const RankContext& ctx, const std::string& address, double period_s);
  ~Heartbeat();
  Heartbeat(const Heartbeat&) = delete;
  Heartbeat& operator=(const Heartbeat&) = delete;

  // The ranks this rank knows to be silent, with how long, as a sentence for a hang
  // message; "" when this rank has no view (it never heard from rank 0: UDP blocked).
  // When every rank answers, it watches for one silence window and a period more before
  // it says so (a rank stopped just before the caller's watchdog fired goes silent then).
  std::string describe_silent() const;
  // The silent ranks with seconds since last heard: this rank's own view of rank 0's
  // silence, and rank 0's view of the rest.
  std::vector<std::pair<int, double>> silent_ranks() const;
  // Silent: nothing heard for longer than this.
  double silence_s() const { return silence_s_; }
  // Rank 0: what each rank that answers waits on ("a 1 MiB receive from rank 2 (h2), open
  // 9.8 s, over tcp ..."), this rank's own included; ranks with no open message of
  // fabscope's engine are left out. Empty elsewhere.
  std::vector<std::pair<int, std::string>> waits() const;
  // Rank 0: each rank's latest wait heard between two steady-clock times (rank 0's own
  // as it beat), in rank order: what the ranks waited on during a stall. A rank with none
  // heard then gets the first heard within `after_ns` past the end (a stall shorter than
  // a beat period is heard at the next beat). The last waits heard are kept: 16 beats'
  // worth per rank, and at least kWaitHistory.
  // kept. Empty elsewhere.
  std::vector<std::pair<int, std::string>> waits_heard(int64_t from_ns, int64_t to_ns, int64_t after_ns) const;
  static constexpr size_t kWaitHistory = 1024;
  // True on the one rank that writes the report when rank 0 is silent: rank 0 went
  // silent, this rank still hears a neighbour (it is not the one cut off; with two ranks
  // there is none to hear), and it is the lowest rank that rank 0 last heard, on another
  // node than rank 0's where there is one (rank0_standby()).
  bool writes_for_silent_rank0() const;

 private:
  Heartbeat() = default;
  void run();
  void send_beats(int64_t now_ns);
  void receive(int64_t now_ns);
  // What this rank's measuring thread waits on, as a clause ("" when nothing is open).
  std::string own_wait(int64_t now_ns) const;
  void remember_wait(int rank, std::string text, int64_t now_ns);  // under mu_

  const RankContext* ctx_ = nullptr;
  int fd_ = -1;
  int wake_[2] = {-1, -1};  // a pipe that ends the thread
  double period_s_ = 1;
  double silence_s_ = 3;
  uint64_t nonce_ = 0;
  struct Endpoint {
    uint32_t addr = 0;  // network order
    uint16_t port = 0;  // network order
  };
  std::vector<Endpoint> peers_;
  mutable std::mutex mu_;
  std::vector<int64_t> heard_ns_;   // rank 0: when each rank was last heard (own: now)
  int64_t rank0_heard_ns_ = 0;      // others: when rank 0 was last heard (0: never)
  int64_t neighbour_heard_ns_ = 0;  // others: when rank r-1 or r+1 was last heard
  struct HeardWait {
    std::string text;
    int64_t heard_ns = 0;
  };
  std::vector<HeardWait> waits_;  // rank 0: what each rank last said it waits on
  struct WaitHeard {
    int rank = 0;
    std::string text;
    int64_t heard_ns = 0;
  };
  std::deque<WaitHeard> history_;  // rank 0: the waits heard, oldest first
  size_t history_cap_ = kWaitHistory;
  std::vector<std::pair<int, double>> rank0_silent_;  // others: rank 0's last list of silent ranks
  int64_t start_ns_ = 0;
  // This process's own pauses: the heartbeat thread's last turn, and the last time it
  // found itself late by more than the silence (the process was stopped or frozen).
  std::atomic<int64_t> last_turn_ns_{0};
  int64_t paused_until_ns_ = 0;  // under mu_
  double paused_s_ = 0;          // under mu_
  std::thread thread_;
};

// The rank that stands in for a silent rank 0: the lowest rank above 0 not in
// `silent_to_rank0` (rank 0's last list of silent ranks) on a node other than rank 0's
// (`nodes`: each rank's node), else the lowest not in that list on rank 0's node; -1 when
// every rank is listed.
int rank0_standby(const std::vector<int>& nodes, const std::vector<int>& silent_to_rank0);

}  // namespace fabscope
