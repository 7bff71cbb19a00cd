// Each rank's steady clock against rank 0's, so that times taken on different hosts
// can be compared: rank 0 exchanges a few ping-pongs with every rank and keeps, per
// rank, the estimate of the exchange with the shortest round trip (NTP's rule). The
// offset is the rank's clock minus rank 0's; its error is at most the bound, half that
// round trip. Measured at two moments, the offsets are interpolated between them, so a
// clock that drifts at a steady rate is followed.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "comm/context.h"
#include "core/status.h"

namespace fabscope {

// One exchange, in ns, each time on the clock of the rank that took it: rank 0 sends
// at t0, the rank receives at t1 and answers at t2, rank 0 receives at t3.
struct PingPongSample {
  int64_t t0 = 0;
  int64_t t1 = 0;
  int64_t t2 = 0;
  int64_t t3 = 0;
};

struct ClockOffset {
  double offset_ns = 0;  // the rank's clock minus rank 0's
  double bound_ns = 0;   // |true offset - offset_ns| <= bound_ns
};
// The estimate of the sample with the shortest round trip; an empty span gives {0, inf}.
ClockOffset offset_from_samples(std::span<const PingPongSample> samples);

// Every rank's offset at one moment, on rank 0 (rank 0's own is {0, 0}); other ranks
// get an empty vector. Every rank calls it.
Result<std::vector<ClockOffset>> measure_clock_offsets(const RankContext& ctx, int exchanges = 16);

// Offsets measured at rank 0's steady times `start_ns` and `end_ns` (start <= end).
class ClockMap {
 public:
  ClockMap() = default;
  ClockMap(int64_t start_ns, std::vector<ClockOffset> start, int64_t end_ns, std::vector<ClockOffset> end);
  // Rank r's steady time `t_ns` on rank 0's clock, the offset interpolated (or held
  // beyond the two moments).
  double to_rank0(int rank, int64_t t_ns) const;
  // The largest error bound over ranks and both moments.
  double bound_ns() const;

 private:
  int64_t start_ns_ = 0;
  int64_t end_ns_ = 0;
  std::vector<ClockOffset> start_;
  std::vector<ClockOffset> end_;
};

}  // namespace fabscope
