// `p2p`: perftest's job across many pairs at once. Bandwidth (uni- and
// bidirectional, a window of messages in flight per flow) and latency (ping-pong),
// over any Transport, on the links a schedule names, round by round.
#pragma once

#include <utility>
#include <vector>

#include "algo/transport.h"
#include "comm/context.h"
#include "core/method.h"
#include "core/progress.h"
#include "core/watchdog.h"
#include "p2p/schedule.h"
#include "report/report.h"

namespace fabscope {

struct P2pOptions {
  P2pPattern pattern = P2pPattern::kRing;
  P2pMode mode = P2pMode::kBandwidth;
  std::pair<int, int> pair = {0, 1};
  std::vector<uint64_t> sizes = {65536};
  int iters = 1000;
  int warmup_iters = 50;
  int window = 64;  // messages in flight per flow in bandwidth modes
  int repeats = 1;  // each round measured this many times in a row (variance, dips)
  // Bandwidth modes: a flow whose warm-up shows it cannot move its messages within
  // kCutBeyondRounds times this many seconds moves as many as fit in this time instead (at
  // least kMinTimedMessages): a round lasts about this long however slow its slowest link,
  // and the link is timed over what it moved. 0: every flow its iters.
  double round_time_s = 0;
  double timeout_s = 300;  // no progress for this long ends the job (see Watchdog)
  // Rounds to run in place of the pattern's (a link schedule: plan_links, suspect_rounds).
  std::vector<Round> rounds;
  // --method: perftest (a stamp per message; latency quoted as the median) or osu
  // (latency quoted as the ping-pong loop's mean, as osu_latency).
  TimingMethod method = TimingMethod::kPerftest;
  // Timed (warm-up) messages per size from the method (osu_latency_loop,
  // osu_bandwidth_loop) instead of iters (warmup_iters): --method osu without -n (-w).
  bool iterations_by_method = false;
  bool warmup_by_method = false;
};

// The rounds a run measures: the options' own, else the pattern's.
Result<std::vector<Round>> p2p_rounds(const P2pOptions& options, int nranks);

Status validate(const P2pOptions& options, int nranks);

// Bandwidth of a flow from its receiver's clock: the average over the messages after the
// first, from the first's arrival to the last's (start_ns only for a single message),
// and the best over any max(window, 64) consecutive messages spanning at least 1 ms (the
// peak). Times in ns, on the same clock as start_ns.
struct FlowBandwidth {
  double avg_gbps = 0;
  double peak_gbps = 0;
  double msg_rate_mpps = 0;
};
inline constexpr int kMinPeakMessages = 64;
inline constexpr int kMinTimedMessages = 4;
// A warm-up of a few messages reads a healthy flow up to a few times slow on a busy host
// (its sender let out late, another process on the core): only a flow beyond this many
// rounds' time is cut (a link at a fortieth of the others is; a busy healthy one is not).
inline constexpr double kCutBeyondRounds = 4;
inline constexpr int64_t kMinPeakNs = 1000000;  // 1 ms
FlowBandwidth flow_bandwidth(uint64_t size_bytes, const std::vector<int64_t>& completion_ns, int64_t start_ns,
                             int window);
LatencyStats latency_stats(std::vector<double> one_way_us);

// Runs every round at every size. The links are complete on rank 0.
// With `counters`, interface counters are sampled around each round's timed part.
// Collective: whether every rank's buffers fit its memory (host, or the transport's GPU
// memory), agreed by all: the estimate per rank, or an error naming the need and what is
// available.
Result<uint64_t> check_p2p_memory(const RankContext& ctx, Transport& transport, const P2pOptions& options);

// This run's floor (P2pSection::floor_us), mean over ranks: the latency loop (per half
// round trip) or the bandwidth loop (per message) around a transport that completes
// every message at once. Collective.
Result<double> p2p_floor_us(const RankContext& ctx, const P2pOptions& options, Watchdog& watchdog);

Result<P2pSection> run_p2p(const RankContext& ctx, Transport& transport, const P2pOptions& options, Progress* progress,
                           std::vector<CounterSample>* counters = nullptr);

}  // namespace fabscope
