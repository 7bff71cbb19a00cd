// The report model's sweep section (report/report.h holds the whole report).
// A sweep: its settings, and per collective each size's figures for both placements, with each rank's timings and
// arrivals.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/iteration_timer.h"
#include "core/method.h"
#include "core/named_enum.h"

namespace fabscope {

struct SweepSettings {
  uint64_t min_bytes = 0;
  uint64_t max_bytes = 0;
  uint64_t step_bytes = 0;
  uint64_t step_factor = 1;
  int iters = 0;
  int warmup_iters = 0;
  int check_iters = 0;
  std::string average;           // how per-rank times become time_us: rank0, mean, min, max ("" unknown)
  std::optional<uint64_t> seed;  // null in imported reports
  int graph_launches = 0;        // -G: iterations captured in a CUDA graph, launched this many times
  // -z: 0 asynchronous, 1 wait+barrier, 2 wait, 3 wait+barrier (barrier not timed); null where not known
  std::optional<int> blocking = 0;
  // -S: the table's rows end with the time each was measured (UTC).
  bool report_timestamps = false;
};

struct TimeStats {
  double min_us = 0;
  double median_us = 0;
  double mean_us = 0;
  double max_us = 0;
  double p99_us = 0;
};

struct RankTiming {
  int rank = 0;
  double median_us = 0;
  double mean_us = 0;
  double min_us = 0;
  double max_us = 0;
};

// When each rank entered and left every timed iteration, on clocks synchronised to
// rank 0's (sweep --arrivals; host-timed backends): whose late entry the others waited
// for, and how the iteration's span splits into that wait and the transfer after it.
struct RankArrival {
  int rank = 0;
  double late_us = 0;     // median over iterations: its entry after the first rank's
  int last_count = 0;     // iterations it entered last, by more than twice the clock bound
  double held_us = 0;     // mean per iteration: its entry after the next-latest rank's, when it was last
  double held_share = 0;  // the time it alone held the others, over the iterations' summed span
  // Inside the iterations: the time its process did not run (stopped, frozen, starved)
  // beyond what the next-most-stalled rank lost, mean per iteration and over the summed span.
  double stalled_us = 0;
  double stalled_share = 0;
};
struct ArrivalSplit {
  double clock_bound_us = 0;  // the largest error of a rank's clock against rank 0's
  int iterations = 0;
  double span_us = 0;      // mean per iteration: the last exit after the first entry
  double skew_us = 0;      // mean: the last entry after the first (waiting for late ranks)
  double transfer_us = 0;  // mean: the last exit after the last entry (the fabric's part)
  std::vector<RankArrival> ranks;
};

struct PlacementResult {
  double time_us = 0;  // nccl-tests' figure: loop time / iterations, reduced over ranks
  double algbw_gbps = 0;
  double busbw_gbps = 0;
  std::optional<int64_t> wrong;  // elements wrong, summed over ranks; null when not checked
  std::vector<int> wrong_ranks;  // ranks that saw wrong elements
  int iterations = 0;            // 0: unknown (imported)
  // Consecutive iterations each sample is the mean of: 1 but where per-iteration device
  // markers would cost the loop more than kDeviceMarkerShare (short iterations on a GPU),
  // and with -G the iterations of one graph launch.
  int iterations_per_sample = 1;
  std::optional<TimeStats> iteration_us;  // per sample: the slowest rank's time; null where not known
  // Every timed iteration's time of the slowest rank, in order: the samples `compare`
  // tests for noise. Empty in reports from before it existed and where not known.
  std::vector<double> samples_us;
  std::vector<RankTiming> per_rank;
  std::optional<ArrivalSplit> arrivals;  // sweep --arrivals only
  // time_us is within kNearFloorFactor times the sweep's floor_us: a large share of it
  // may be the timing loop's own cost, not the collective's. False where no floor is known.
  bool near_floor = false;
};

// Where a collective's output goes: its own buffer, or over its input (nccl-tests'
// two column groups).
enum class Placement { kOutOfPlace, kInPlace };
template <>
struct EnumNames<Placement> {
  static constexpr std::pair<Placement, std::string_view> kNames[] = {{Placement::kOutOfPlace, "out_of_place"},
                                                                      {Placement::kInPlace, "in_place"}};
};
inline constexpr Placement kPlacements[] = {Placement::kOutOfPlace, Placement::kInPlace};
// As the tables and findings say it: "out-of-place", "in-place".
constexpr std::string_view label(Placement p) { return p == Placement::kInPlace ? "in-place" : "out-of-place"; }
inline Placement placement_of(bool in_place) { return in_place ? Placement::kInPlace : Placement::kOutOfPlace; }

struct SweepPoint {
  uint64_t size_bytes = 0;
  uint64_t count = 0;
  std::optional<PlacementResult> out_of_place;
  std::optional<PlacementResult> in_place;
  std::string time;  // when it was measured (both placements done), ISO 8601 UTC; "" unknown

  const std::optional<PlacementResult>& at(Placement p) const {
    return p == Placement::kInPlace ? in_place : out_of_place;
  }
  std::optional<PlacementResult>& at(Placement p) { return p == Placement::kInPlace ? in_place : out_of_place; }
};

struct Sweep {
  std::string collective;
  std::string dtype;
  std::optional<std::string> op;  // null for collectives that do not reduce
  std::string backend;
  std::optional<int> root;  // null for rootless collectives
  int nranks = 0;
  double busbw_factor = 1;
  // What timed each iteration for the per-iteration statistics (core/iteration_timer.h).
  IterationTimer iteration_clock = IterationTimer::kHost;
  // The library API the collective was issued as ("ncclAlltoAll", "ncclSend/ncclRecv
  // (grouped)"); null where the backend does not say (fabscope's own algorithms, MPI)
  // and in reports from before it existed.
  std::optional<std::string> api;
  // How the figures were taken (--method): nccl-tests (back-to-back loop over moving
  // buffer offsets, loop time / iterations) or osu (each call between barriers on a
  // fixed buffer, the mean of the calls' times).
  TimingMethod method = TimingMethod::kNcclTests;
  // This run's per-iteration floor: the same timed loop, clock reads and barriers
  // around an operation that does nothing, in microseconds (reduced over ranks as
  // time_us). Null where not measured (imported reports, reports before it existed).
  std::optional<double> floor_us;
  std::vector<SweepPoint> points;
};

// A figure within this many times its floor is marked near_floor.
inline constexpr double kNearFloorFactor = 5;

}  // namespace fabscope
