// The rank context: MPI bootstrap for every backend. Ranks, hosts, local ranks,
// barriers, reductions of measurements and gathering of results to rank 0.
#pragma once

#include <mpi.h>

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/status.h"

namespace fabscope {

class Heartbeat;

struct RankInfo {
  int rank = 0;
  std::string host;
  int pid = 0;
  int local_rank = 0;
  // The node: the world rank of the node's first rank, from MPI's shared-memory split.
  // Ranks on one node share it, whatever their host names say.
  int node = 0;
};

// Host names must tell nodes apart (reports, findings and drain lists name hosts): where
// nodes share one name (cloned images, some containers), each such node's ranks get
// "NAME#K", K counting those nodes in rank order. Nodes with their own names keep them.
void distinguish_shared_host_names(std::vector<RankInfo>& ranks);

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
  // This rank's host: its name, made unique per node (distinguish_shared_host_names).
  const std::string& host() const { return host_; }
  // True when every rank runs on this rank's node (as MPI's shared-memory split says).
  bool all_on_one_node() const { return local_size_ == size_; }
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

  // Collective: starts the heartbeat (comm/heartbeat.h) on this rank's IPv4 `address`,
  // one datagram every `period_s`. Without it peer_view() knows nothing.
  Status start_heartbeat(const std::string& address, double period_s);
  // For a watchdog's message: the ranks that stopped answering, named with their hosts;
  // "" without a heartbeat or a view. Valid while this context lives.
  std::function<std::string()> peer_view() const;
  // True when this rank's heartbeat has not heard from rank 0 lately (stopped, dead or cut
  // off); false without a heartbeat, or on rank 0.
  bool rank0_silent() const;
  // True on the one rank that writes the report in rank 0's place: rank 0 silent, this
  // rank not cut off itself, and the lowest rank rank 0 last heard (Heartbeat::
  // writes_for_silent_rank0); false without a heartbeat.
  bool writes_for_silent_rank0() const;
  // Rank 0: what the ranks said they waited on between two steady-clock times
  // (Heartbeat::waits_heard), as "rank 3 (h3) waited for a 256 KiB receive from rank 2
  // (h2), open 2.9 s, over tcp ..."; empty elsewhere or without a heartbeat.
  std::vector<std::string> waits_heard(int64_t from_ns, int64_t to_ns, int64_t after_ns) const;

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
  std::unique_ptr<Heartbeat> heartbeat_;
};

}  // namespace fabscope
