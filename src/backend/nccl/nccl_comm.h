// One rank's GPU, stream and NCCL communicator, shared by the nccl backend and the
// nccl p2p transport: set-up (the GPU agreed by every rank, the unique id sent over
// MPI, a blocking communicator under a watchdog), polling of the stream with --timeout
// (yielding the core to NCCL's proxy thread), abort, and capture of the stream's work
// as a CUDA graph.
#pragma once

#include <cuda_runtime.h>
#include <fmt/format.h>
#include <nccl.h>

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "backend/backend.h"
#include "backend/registry.h"
#include "comm/context.h"
#include "core/log.h"

namespace fabscope {

// Beyond --timeout, how long a call inside NCCL on the host (set-up, a first call's
// connections) may take before the watchdog ends the process: NCCL's own timeouts
// come first.
inline constexpr double kNcclHostGraceS = 30;

class NcclComm {
 public:
  static Result<std::unique_ptr<NcclComm>> create(const RankContext& ctx, const BackendOptions& o, const Logger& log);
  NcclComm(const NcclComm&) = delete;
  NcclComm& operator=(const NcclComm&) = delete;
  ~NcclComm();

  ncclComm_t comm() const { return comm_; }
  cudaStream_t stream() const { return stream_; }
  int device() const { return device_; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  double timeout_s() const { return timeout_s_; }
  const std::string& library() const { return library_; }
  const std::string& device_name() const { return device_name_; }
  const std::string& bus_id() const { return bus_id_; }
  // "rank 3 (node07, GPU 1 0000:1b:00.0)"
  std::string where() const { return fmt::format("rank {} ({}, GPU {} {})", rank_, host_, device_, bus_id_); }

  // Aborts the communicator (once) and returns `message` as the error.
  Status abort_with(const std::string& message);

  // The result of an NCCL call as a Status naming it and this rank. The communicator is
  // blocking, so a call has done its host-side work when it returns (no ncclInProgress).
  Status check(ncclResult_t r, std::string_view what);

  // An error NCCL reports asynchronously (a peer gone, a network failure) aborts the
  // communicator and is returned, `what` naming the work; Ok otherwise.
  Status async_error(const std::function<std::string()>& what);

  // Polls, yielding the core while idle (core/idle_wait.h), until everything enqueued on the stream has run, NCCL
  // reports an error, or
  // --timeout passes without completion; then aborts the communicator, so that no
  // rank hangs. `what` names the work waited for, in the error.
  Status wait(const std::function<std::string()>& what);

  // The work `enqueue` puts on the stream, captured as a CUDA graph.
  Result<std::unique_ptr<CapturedWork>> capture(const std::function<Status()>& enqueue);

 private:
  NcclComm() = default;
  Status failed(ncclResult_t r, std::string_view what);
  // The steps of create().
  Status open_gpu(const RankContext& ctx, const BackendOptions& o, int& visible);
  Result<ncclUniqueId> shared_unique_id(const RankContext& ctx) const;
  Status init_communicator(const RankContext& ctx, const ncclUniqueId& id, const Logger& log);

  ncclComm_t comm_ = nullptr;
  cudaStream_t stream_ = nullptr;
  bool aborted_ = false;
  int device_ = -1;
  int rank_ = 0;
  int size_ = 1;
  double timeout_s_ = 0;
  std::string host_;
  std::string library_;
  std::string device_name_;
  std::string bus_id_;
};

}  // namespace fabscope
