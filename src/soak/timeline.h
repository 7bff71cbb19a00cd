// A run's timeline, built on rank 0 as points are measured: per interval (a cycle, or
// the cycles of a period) and point, the iterations' median, p99 and maximum and the
// nccl-tests figure over the interval. Only the open interval's samples are held;
// a closed interval keeps its aggregates, so a day-long run's memory grows by one
// interval's figures per period (bench/timeline_bound).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "report/report.h"

namespace fabscope {

// At most this many intervals are kept: a run that reaches twice as many (-N 0 for days,
// or a short --interval) has its intervals folded in pairs and its interval doubled.
inline constexpr size_t kMaxTimelineIntervals = 240;
// Folds adjacent intervals in pairs (0+1, 2+3, ...): cycles, seconds, iterations, time,
// bus bandwidth, maximum, stalls and the hosts' counters add up exactly; a folded
// point's median is its halves' iteration-weighted mean of medians and its p99 the larger
// of theirs (the samples are gone).
void fold_intervals(std::vector<TimelineInterval>& intervals);
// Keeps a stall in the timeline: the first kMaxStallEvents, the rest counted.
void record_stall(Timeline& timeline, StallEvent stall);

class TimelineBuilder {
 public:
  // An interval opens (on the first point of `cycle`, or after the last one closed).
  void open(int cycle);
  bool is_open() const { return open_; }
  int first_cycle() const { return first_cycle_; }
  // The next interval's index (a builder that takes over after `index` closed ones).
  void skip_to(int index) { index_ = index; }
  // One placement of a measured point: its samples join the open interval's.
  void add(const Sweep& sweep, const SweepPoint& point, bool in_place, const PlacementResult& result);
  // A stall found in that placement (counted per point of the interval).
  void add_stall(const StallEvent& stall);
  // Closes the open interval after `cycles` cycles (the last one possibly partial) with
  // the hosts' counters over it; returns it.
  TimelineInterval close(int cycles, std::vector<CounterSample> hosts);
  // The open interval as it stands, left open (a report written before it closes).
  TimelineInterval peek(int cycles) const;
  double open_seconds() const;  // since the open interval opened (0 when none is)

  // The open interval's latest figures of the last point measured: for a progress line.
  struct Latest {
    std::string what;  // "allreduce 1 MiB"
    double busbw_gbps = 0;
    double p99_us = 0;
  };
  const Latest& latest() const { return latest_; }

 private:
  // collective, dtype, op ("" none), size, placement
  using Key = std::tuple<std::string, std::string, std::string, uint64_t, Placement>;
  struct Accumulated {
    TimelinePoint point;
    double time_sum_us = 0;  // time_us × iterations, summed
    double bw_time = 0;      // busbw × time_us: the same for every measurement of a point
    std::vector<double> samples_us;
  };
  TimelineInterval build(int cycles) const;
  static Key key_of(const std::string& coll, const std::string& dtype, const std::optional<std::string>& op,
                    uint64_t size, Placement placement);
  bool open_ = false;
  int index_ = 0;
  int first_cycle_ = 0;
  int64_t start_ns_ = 0;  // steady
  std::string start_;
  std::vector<Accumulated> points_;
  std::map<Key, size_t> where_;
  Latest latest_;
};

}  // namespace fabscope
