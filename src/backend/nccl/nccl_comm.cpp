#include "backend/nccl/nccl_comm.h"

#include <cstdlib>
#include <cstring>
#include <thread>

#include "backend/nccl/nccl_plan.h"
#include "backend/nccl/nccl_util.h"
#include "core/clock.h"
#include "kernels/device_pattern.h"

namespace fabscope {

NcclComm::~NcclComm() {
  if (comm_ != nullptr && !aborted_) {
    ncclResult_t r = ncclCommFinalize(comm_);
    if (r == ncclInProgress) {
      const double start = steady_now_s();
      ncclResult_t state = ncclInProgress;
      while (ncclCommGetAsyncError(comm_, &state) == ncclSuccess && state == ncclInProgress &&
             steady_now_s() - start < 30) {
        std::this_thread::yield();
      }
      r = state;
    }
    if (r == ncclSuccess) {
      ncclCommDestroy(comm_);
    } else {
      ncclCommAbort(comm_);
    }
  }
  if (stream_ != nullptr) cudaStreamDestroy(stream_);
}

Status NcclComm::abort_with(const std::string& message) {
  if (comm_ != nullptr && !aborted_) {
    ncclCommAbort(comm_);
    aborted_ = true;
  }
  return Status::Runtime(message);
}

Status NcclComm::check(ncclResult_t r, std::string_view what) {
  if (r == ncclSuccess) return Status::Ok();
  if (r != ncclInProgress) return failed(r, what);
  const double start = steady_now_s();
  for (;;) {
    ncclResult_t state = ncclSuccess;
    ncclResult_t q = ncclCommGetAsyncError(comm_, &state);
    if (q != ncclSuccess) return failed(q, what);
    if (state == ncclSuccess) return Status::Ok();
    if (state != ncclInProgress) return failed(state, what);
    if (timeout_s_ > 0 && steady_now_s() - start > timeout_s_) {
      return abort_with(fmt::format("{} did not finish within --timeout {} s on {}; the NCCL communicator was aborted",
                                    what, timeout_s_, where()));
    }
    std::this_thread::yield();
  }
}

Status NcclComm::wait(const std::function<std::string()>& what) {
  const double start = steady_now_s();
  for (unsigned spins = 1;; ++spins) {
    cudaError_t e = cudaStreamQuery(stream_);
    if (e == cudaSuccess) return Status::Ok();
    if (e != cudaErrorNotReady) {
      return abort_with(fmt::format("{} failed on {}: CUDA error {}", what(), where(), cuda_text(e)));
    }
    if (spins % 256 != 0) continue;
    ncclResult_t state = ncclSuccess;
    if (ncclCommGetAsyncError(comm_, &state) == ncclSuccess && state != ncclSuccess && state != ncclInProgress) {
      return abort_with(fmt::format("{} failed on {}: NCCL error {} ({}); the NCCL communicator was aborted", what(),
                                    where(), ncclGetErrorString(state), ncclGetLastError(comm_)));
    }
    if (timeout_s_ > 0 && steady_now_s() - start > timeout_s_) {
      return abort_with(fmt::format(
          "{} did not complete within {} s on {} (--timeout); the NCCL communicator was aborted. A rank that "
          "never reached this collective, a dead peer or a stalled link keeps the others waiting",
          what(), timeout_s_, where()));
    }
  }
}

Status NcclComm::failed(ncclResult_t r, std::string_view what) {
  const char* last = comm_ != nullptr ? ncclGetLastError(comm_) : ncclGetLastError(nullptr);
  return Status::Runtime(fmt::format("{} failed on {}: {}{}{}", what, where(), ncclGetErrorString(r),
                                     last && *last ? ": " : "", last ? last : ""));
}

Result<std::unique_ptr<NcclComm>> NcclComm::create(const RankContext& ctx, const BackendOptions& o, const Logger& log) {
  std::unique_ptr<NcclComm> c(new NcclComm());
  c->rank_ = ctx.rank();
  c->size_ = ctx.size();
  c->host_ = ctx.host();
  c->timeout_s_ = o.timeout_s;

  // This rank's GPU: agreed by every rank before any of them starts NCCL, so that
  // one rank without a GPU fails the job instead of leaving the others in init.
  Status local = Status::Ok();
  auto count = kernels::device_count();
  if (!count.ok()) {
    local = Status::Unavailable(fmt::format("host {}: {}", ctx.host(), count.status().message()));
  } else {
    auto dev =
        choose_device(ctx.local_rank(), ctx.local_size(), *count, ctx.host(), std::getenv("CUDA_VISIBLE_DEVICES"));
    if (!dev.ok()) {
      local = dev.status();
    } else {
      c->device_ = *dev;
      local = cuda_check(cudaSetDevice(c->device_), fmt::format("cudaSetDevice({})", c->device_));
      if (local.ok()) {
        local = cuda_check(cudaStreamCreateWithFlags(&c->stream_, cudaStreamNonBlocking), "cudaStreamCreate");
      }
      if (local.ok()) {
        cudaDeviceProp prop{};
        local = cuda_check(cudaGetDeviceProperties(&prop, c->device_), "cudaGetDeviceProperties");
        if (local.ok()) c->device_name_ = prop.name;
        char bus[32] = {};
        if (local.ok())
          local = cuda_check(cudaDeviceGetPCIBusId(bus, sizeof(bus), c->device_), "cudaDeviceGetPCIBusId");
        if (local.ok()) c->bus_id_ = bus;
      }
    }
  }
  FABSCOPE_RETURN_IF_ERROR(ctx.agree(local));

  // NCCL reads its logging variables when it starts, so they are set before any call.
  if (!o.nccl_debug_dir.empty()) {
    for (const auto& [key, value] : nccl_debug_env(o.nccl_debug_dir, ctx.host(), ctx.rank())) {
      setenv(key.c_str(), value.c_str(), 1);
    }
    log.info("NCCL log of this rank: {}", nccl_debug_file(o.nccl_debug_dir, ctx.host(), ctx.rank()));
  }
  // The profiler plugin and where it writes; NCCL's log beside it when none was asked
  // for, for the NIC of each channel.
  if (!o.nccl_profile_dir.empty()) {
    if (const char* before = std::getenv("NCCL_PROFILER_PLUGIN"); before != nullptr && *before != '\0') {
      log.info("--nccl-profile: NCCL_PROFILER_PLUGIN={} replaced by {}", before, o.nccl_profiler_plugin);
    }
    setenv("NCCL_PROFILER_PLUGIN", o.nccl_profiler_plugin.c_str(), 1);
    setenv("FABSCOPE_PROFILE_DIR", o.nccl_profile_dir.c_str(), 1);
    if (o.nccl_debug_dir.empty()) {
      for (const auto& [key, value] : nccl_debug_env(o.nccl_profile_dir, ctx.host(), ctx.rank())) {
        setenv(key.c_str(), value.c_str(), 1);
      }
    }
  }

  int runtime = 0;
  int driver = 0;
  cudaRuntimeGetVersion(&runtime);
  cudaDriverGetVersion(&driver);
  c->library_ =
      fmt::format("NCCL {} (CUDA runtime {}, driver {}; rank 0 on {})", nccl_version_string(nccl_version_code()),
                  cuda_version_string(runtime), cuda_version_string(driver), c->device_name_);

  // The communicator's id, made by rank 0 and sent over MPI.
  ncclUniqueId id{};
  std::string id_bytes;
  local = Status::Ok();
  if (ctx.rank() == 0) {
    ncclResult_t r = ncclGetUniqueId(&id);
    if (r != ncclSuccess) {
      local = Status::Runtime(fmt::format("ncclGetUniqueId failed on {}: {} ({})", c->where(), ncclGetErrorString(r),
                                          ncclGetLastError(nullptr)));
    }
    id_bytes.assign(id.internal, sizeof(id.internal));
  }
  FABSCOPE_RETURN_IF_ERROR(ctx.agree(local));
  auto shared = ctx.broadcast(id_bytes, 0);
  if (!shared.ok()) return shared.status();
  if (shared->size() != sizeof(id.internal)) {
    return Status::Runtime(
        fmt::format("the NCCL id from rank 0 has {} bytes, not {}", shared->size(), sizeof(id.internal)));
  }
  std::memcpy(id.internal, shared->data(), sizeof(id.internal));

  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;  // every call returns at once; fabscope polls, with a timeout
  config.commName = "fabscope";
  log.debug("ncclCommInitRankConfig: {} ranks, this one on GPU {} ({} {})", ctx.size(), c->device_, c->device_name_,
            c->bus_id_);
  local = c->check(ncclCommInitRankConfig(&c->comm_, ctx.size(), id, ctx.rank(), &config), "ncclCommInitRankConfig");
  if (Status agreed = ctx.agree(local); !agreed.ok()) {
    (void)c->abort_with(agreed.message());  // a communicator another rank lacks is never used
    return agreed;
  }
  return c;
}

namespace {

// A CUDA graph instantiated from the stream's captured work.
class CudaGraph final : public CapturedWork {
 public:
  CudaGraph(cudaGraphExec_t exec, cudaStream_t stream) : exec_(exec), stream_(stream) {}
  ~CudaGraph() override { cudaGraphExecDestroy(exec_); }
  Status launch() override { return cuda_check(cudaGraphLaunch(exec_, stream_), "cudaGraphLaunch"); }

 private:
  cudaGraphExec_t exec_;
  cudaStream_t stream_;
};

}  // namespace

Result<std::unique_ptr<CapturedWork>> NcclComm::capture(const std::function<Status()>& enqueue) {
  FABSCOPE_RETURN_IF_ERROR(
      cuda_check(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture"));
  Status s = enqueue();
  cudaGraph_t graph = nullptr;
  cudaError_t e = cudaStreamEndCapture(stream_, &graph);
  if (!s.ok() || e != cudaSuccess) {
    if (graph != nullptr) cudaGraphDestroy(graph);
    if (!s.ok()) return s;
    return cuda_check(e, "cudaStreamEndCapture");
  }
  cudaGraphExec_t exec = nullptr;
  e = cudaGraphInstantiate(&exec, graph, 0);
  cudaGraphDestroy(graph);
  FABSCOPE_RETURN_IF_ERROR(cuda_check(e, "cudaGraphInstantiate"));
  return std::unique_ptr<CapturedWork>(new CudaGraph(exec, stream_));
}

}  // namespace fabscope
