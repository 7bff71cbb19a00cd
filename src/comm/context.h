// The rank context: MPI bootstrap for every backend. Ranks, hosts, local ranks,
// barriers, reductions of measurements and gathering of results to rank 0.
#pragma once

#include <mpi.h>

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/status.h"

namespace fabscope {

struct RankInfo {
  int rank = 0;
  std::string host;
  int pid = 0;
  int local_rank = 0;
};

// How a per-rank measurement becomes one number, as nccl-tests' -a: rank 0's value,
// the mean over ranks (its default), the minimum or the maximum.
enum class RankReduction { kRank0 = 0, kMean = 1, kMin = 2, kMax = 3 };
std::string_view name(RankReduction r);

class RankContext {
 public:
  // Initialises MPI (once per process) and learns every rank's host and local rank.
  static Result<std::unique_ptr<RankContext>> create(int* argc, char*** argv);
  ~RankContext();
  RankContext(const RankContext&) = delete;
  RankContext& operator=(const RankContext&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  int local_rank() const { return local_rank_; }
  int local_size() const { return local_size_; }
  const std::string& host() const { return host_; }
  const std::vector<RankInfo>& ranks() const { return ranks_; }
  MPI_Comm comm() const { return world_; }

  Status barrier() const;
  // Every rank passes its own status; all get back the first failure by rank order
  // (with that rank's message), or OK. Use it before acting on rank-local checks.
  Status agree(const Status& local) const;
  Result<double> reduce(double value, RankReduction how) const;  // result on every rank
  Result<int64_t> sum(int64_t value) const;
  // Gathers `count` doubles from every rank to rank 0 (rank-major); empty elsewhere.
  Result<std::vector<double>> gather(std::span<const double> values) const;
  // Gathers a different number of doubles from each rank to rank 0, concatenated in
  // rank order; empty elsewhere.
  Result<std::vector<double>> gather_varying(std::span<const double> values) const;
  Result<std::string> broadcast(const std::string& value, int root) const;
  // Every rank's text, gathered to rank 0 in rank order; empty elsewhere.
  Result<std::vector<std::string>> gather_text(const std::string& text) const;

  // The one place a fatal run error ends the job: every rank of it.
  [[noreturn]] void abort(int exit_code) const;

 private:
  RankContext() = default;
  bool initialized_here_ = false;
  MPI_Comm world_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 1;
  int local_rank_ = 0;
  int local_size_ = 1;
  std::string host_;
  std::vector<RankInfo> ranks_;
};

}  // namespace fabscope
