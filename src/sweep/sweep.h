// `sweep`: times collectives over a range of sizes, as nccl-tests does, and checks
// every result on every rank. Measurement only: it returns report records and knows
// nothing of output formats.
#pragma once

#include <cstdint>
#include <vector>

#include "backend/backend.h"
#include "coll/collective.h"
#include "comm/context.h"
#include "core/dtype.h"
#include "core/progress.h"
#include "core/sizes.h"
#include "report/report.h"

namespace fabscope {

struct SweepOptions {
  std::vector<Collective> collectives;
  std::vector<DataType> dtypes = {DataType::kFloat};
  std::vector<ReduceOp> ops = {ReduceOp::kSum};
  SizeRange sizes;
  int iters = 20;
  int warmup_iters = 1;
  int check_iters = 1;  // verification passes per size and placement; 0 = none
  int root = 0;
  RankReduction average = RankReduction::kMean;
  uint64_t seed = 0x5eed;
};

// Checks the options against the rank count and the backend's limits, before any
// data moves: sizes must be whole elements of every data type, the root a rank.
Status validate(const SweepOptions& options, int nranks, uint64_t backend_max_count);

// Told about each result as soon as it is measured (on rank 0), e.g. to print a row.
class SweepObserver {
 public:
  virtual ~SweepObserver() = default;
  virtual void on_sweep_begin(const Sweep& sweep) = 0;
  virtual void on_point(const Sweep& sweep, const SweepPoint& point) = 0;
  virtual void on_sweep_end(const Sweep& sweep) = 0;
};

// Runs every (collective, dtype, op) sweep. Results are complete on rank 0; other
// ranks get the same sweeps with their own per-rank fields left empty.
Result<std::vector<Sweep>> run_sweeps(const RankContext& ctx, Backend& backend, const SweepOptions& options,
                                      SweepObserver* observer, Progress* progress);

}  // namespace fabscope
