// The nccl-tests text table, rendered from the report alone: the same columns,
// widths, number formats and footer lines, so numbers line up with nccl-tests'.
#pragma once

#include <string>

#include "report/report.h"

namespace fabscope {

// nccl-tests' number format: the widest of %.2f, %.1f, %.0f that fits `width`,
// else an exponent.
std::string nccl_float(double value, int width);

std::string render_preamble(const Report& report);
// `timestamps` (-S): a last column with the time each row was measured, as nccl-tests'.
std::string render_column_header(bool timestamps = false);
// A row ends with "~" where a placement's time is near the sweep's floor (near_floor),
// after its time with `timestamps`.
std::string render_row(const Sweep& sweep, const SweepPoint& point, bool timestamps = false);
// "# Floor: ..." before a sweep's table: its floor and how rows near it are marked;
// nothing where no floor was measured.
std::string render_floor(const Sweep& sweep);

// Accumulates the footer of one collective's table while rows are printed.
class TableFooter {
 public:
  void add(const SweepPoint& point);
  std::string render(const std::string& collective) const;
  double average_busbw() const { return rows_ ? busbw_sum_ / rows_ : 0; }
  int out_of_bounds() const { return out_of_bounds_; }

 private:
  double busbw_sum_ = 0;
  int rows_ = 0;
  int out_of_bounds_ = 0;
};

std::string render_group_start(const std::string& collective, bool timestamps = false);
// A run cycle's first line (-N): "# Run cycle 2 of 10 (...)".
std::string render_cycle_start(int cycle, int run_cycles);
// The whole text output of a sweep run: preamble, then one table per collective;
// nothing for a report without sweeps.
std::string render_tables(const Report& report);

}  // namespace fabscope
