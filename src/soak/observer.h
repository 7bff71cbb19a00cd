// What a run tells as it goes (rank 0's results; with --mirror every rank's).
#pragma once

#include "report/report.h"

namespace fabscope {

// Told about each result as soon as it is measured (on rank 0), e.g. to print a row.
class SweepObserver {
 public:
  virtual ~SweepObserver() = default;
  virtual void on_sweep_begin(const Sweep& sweep) = 0;
  virtual void on_point(const Sweep& sweep, const SweepPoint& point) = 0;
  virtual void on_sweep_end(const Sweep& sweep) = 0;
  // A run cycle begins (-N): 0 first; the points that follow are that cycle's.
  virtual void on_cycle_begin(int /*cycle*/) {}
  // An interval of the timeline closed: the timeline so far (stalls and links included).
  virtual void on_interval(const Timeline& /*timeline*/) {}
  // A stall was found in the point just measured (before on_point).
  virtual void on_stall(const StallEvent& /*stall*/) {}
};

}  // namespace fabscope
