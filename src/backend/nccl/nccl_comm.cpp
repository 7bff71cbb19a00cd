#include "backend/nccl/nccl_comm.h"

#include <cstdlib>
#include <cstring>

#include "backend/nccl/nccl_plan.h"
#include "backend/nccl/nccl_util.h"
#include "core/clock.h"
#include "core/idle_wait.h"
#include "core/watchdog.h"
#include "kernels/device_pattern.h"

namespace fabscope {

NcclComm::~NcclComm() {
  // A blocking communicator: finalize returns once NCCL's outstanding work is done.
  if (comm_ != nullptr && !aborted_) {
    if (ncclCommFinalize(comm_) == ncclSuccess) {
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
  return r == ncclSuccess ? Status::Ok() : failed(r, what);
}

Status NcclComm::async_error(const std::function<std::string()>& what) {
  ncclResult_t state = ncclSuccess;
  if (ncclCommGetAsyncError(comm_, &state) != ncclSuccess || state == ncclSuccess || state == ncclInProgress) {
    return Status::Ok();
  }
  return abort_with(fmt::format("{} failed on {}: NCCL error {} ({}); the NCCL communicator was aborted", what(),
                                where(), ncclGetErrorString(state), ncclGetLastError(comm_)));
}

Status NcclComm::wait(const std::function<std::string()>& what) {
  double start = -1;  // read at the first check: a wait that ends at once reads no clock
  return wait_yielding(
      [&]() -> Result<bool> {
        cudaError_t e = cudaStreamQuery(stream_);
        if (e == cudaSuccess) return true;
        if (e == cudaErrorNotReady) return false;
        return abort_with(fmt::format("{} failed on {}: CUDA error {}", what(), where(), cuda_text(e)));
      },
      [&]() -> Result<bool> {
        FABSCOPE_RETURN_IF_ERROR(async_error(what));
        const double now = steady_now_s();
        if (start < 0) start = now;
        if (timeout_s_ <= 0 || now - start <= timeout_s_) return false;
        return abort_with(fmt::format(
            "{} did not complete within {} s on {} (--timeout); the NCCL communicator was aborted. A rank that "
            "never reached this collective, a dead peer or a stalled link keeps the others waiting",
            what(), timeout_s_, where()));
      });
}

Status NcclComm::failed(ncclResult_t r, std::string_view what) {
  const char* last = comm_ != nullptr ? ncclGetLastError(comm_) : ncclGetLastError(nullptr);
  return Status::Runtime(fmt::format("{} failed on {}: {}{}{}", what, where(), ncclGetErrorString(r),
                                     last && *last ? ": " : "", last ? last : ""));
}

// This rank's GPU (one per rank, or shared with --share-gpus), its stream, name and bus
// id; `visible` the GPUs CUDA shows. Not yet agreed with the other ranks.
Status NcclComm::open_gpu(const RankContext& ctx, const BackendOptions& o, int& visible) {
  auto count = kernels::device_count();
  if (!count.ok()) return Status::Unavailable(fmt::format("host {}: {}", ctx.host(), count.status().message()));
  visible = *count;
  auto dev = choose_device(ctx.local_rank(), ctx.local_size(), *count, ctx.host(), std::getenv("CUDA_VISIBLE_DEVICES"),
                           o.share_gpus);
  if (!dev.ok()) return dev.status();
  device_ = *dev;
  FABSCOPE_RETURN_IF_ERROR(cuda_check(cudaSetDevice(device_), fmt::format("cudaSetDevice({})", device_)));
  FABSCOPE_RETURN_IF_ERROR(cuda_check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate"));
  cudaDeviceProp prop{};
  FABSCOPE_RETURN_IF_ERROR(cuda_check(cudaGetDeviceProperties(&prop, device_), "cudaGetDeviceProperties"));
  device_name_ = prop.name;
  char bus[32] = {};
  FABSCOPE_RETURN_IF_ERROR(cuda_check(cudaDeviceGetPCIBusId(bus, sizeof(bus), device_), "cudaDeviceGetPCIBusId"));
  bus_id_ = bus;
  return Status::Ok();
}

namespace {

// The variables NCCL reads when it starts, set before any call: its log
// (--nccl-debug-dir), the profiler plugin and where it writes (NCCL's log beside it
// when none was asked for, for the NIC of each channel), and with --share-gpus a host
// id of this rank's own, so that NCCL takes every pair of ranks for two hosts.
void set_nccl_environment(const RankContext& ctx, const BackendOptions& o, const Logger& log) {
  auto set_all = [](const std::vector<std::pair<std::string, std::string>>& vars) {
    for (const auto& [key, value] : vars) setenv(key.c_str(), value.c_str(), 1);
  };
  if (!o.nccl_debug_dir.empty()) {
    set_all(nccl_debug_env(o.nccl_debug_dir, ctx.host(), ctx.rank()));
    log.info("NCCL log of this rank: {}", nccl_debug_file(o.nccl_debug_dir, ctx.host(), ctx.rank()));
  }
  if (!o.nccl_profile_dir.empty()) {
    if (const char* before = std::getenv("NCCL_PROFILER_PLUGIN"); before != nullptr && *before != '\0') {
      log.info("--nccl-profile: NCCL_PROFILER_PLUGIN={} replaced by {}", before, o.nccl_profiler_plugin);
    }
    setenv("NCCL_PROFILER_PLUGIN", o.nccl_profiler_plugin.c_str(), 1);
    setenv("FABSCOPE_PROFILE_DIR", o.nccl_profile_dir.c_str(), 1);
    if (o.nccl_debug_dir.empty()) set_all(nccl_debug_env(o.nccl_profile_dir, ctx.host(), ctx.rank()));
  }
  if (o.share_gpus) setenv("NCCL_HOSTID", shared_gpu_host_id(ctx.host(), ctx.rank()).c_str(), 1);
}

// "NCCL 2.28.9 (CUDA runtime 13.0, driver 13.0; rank 0 on NVIDIA H100 80GB HBM3)", and
// with --share-gpus how many ranks share how many GPUs.
std::string library_text(const RankContext& ctx, const BackendOptions& o, const std::string& device_name, int visible) {
  int runtime = 0;
  int driver = 0;
  cudaRuntimeGetVersion(&runtime);
  cudaDriverGetVersion(&driver);
  std::string text =
      fmt::format("NCCL {} (CUDA runtime {}, driver {}; rank 0 on {})", nccl_version_string(nccl_version_code()),
                  cuda_version_string(runtime), cuda_version_string(driver), device_name);
  if (o.share_gpus) {
    text += fmt::format(
        "; --share-gpus: {} rank{} on {} GPU{} of rank 0's host, each its own NCCL host id (NCCL's network transport "
        "between every pair)",
        ctx.local_size(), ctx.local_size() == 1 ? "" : "s", visible, visible == 1 ? "" : "s");
  }
  return text;
}

}  // namespace

// The communicator's id, made by rank 0 and sent over MPI.
Result<ncclUniqueId> NcclComm::shared_unique_id(const RankContext& ctx) const {
  ncclUniqueId id{};
  std::string id_bytes;
  Status local = Status::Ok();
  if (ctx.rank() == 0) {
    ncclResult_t r = ncclGetUniqueId(&id);
    if (r != ncclSuccess) {
      local = Status::Runtime(fmt::format("ncclGetUniqueId failed on {}: {} ({})", where(), ncclGetErrorString(r),
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
  return id;
}

// A blocking communicator, as nccl-tests uses: a non-blocking one runs every grouped
// call's host work on a thread of its own (35-45 us a call). Work that hangs on the
// device is aborted by wait() from this thread, NCCL's documented pattern; a call that
// hangs inside NCCL on the host (a peer gone during set-up) cannot be aborted from
// another thread without a use after free (NCCL 2.28's ncclCommAbort frees what the
// blocked call still reads), so there a watchdog ends the process and says where.
Status NcclComm::init_communicator(const RankContext& ctx, const ncclUniqueId& id, const Logger& log) {
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 1;
  config.commName = "fabscope";
  log.debug("ncclCommInitRankConfig: {} ranks, this one on GPU {} ({} {})", ctx.size(), device_, device_name_, bus_id_);
  Watchdog init_guard(timeout_s_ > 0 ? timeout_s_ + kNcclHostGraceS : 0,
                      fmt::format("[r{} {}]", ctx.rank(), ctx.host()), stderr, ctx.peer_view());
  init_guard.set_phase(fmt::format(
      "ncclCommInitRankConfig on {} (NCCL's set-up of the communicator, which every rank must reach)", where()));
  return check(ncclCommInitRankConfig(&comm_, ctx.size(), id, ctx.rank(), &config), "ncclCommInitRankConfig");
}

Result<std::unique_ptr<NcclComm>> NcclComm::create(const RankContext& ctx, const BackendOptions& o, const Logger& log) {
  std::unique_ptr<NcclComm> c(new NcclComm());
  c->rank_ = ctx.rank();
  c->size_ = ctx.size();
  c->host_ = ctx.host();
  c->timeout_s_ = o.timeout_s;
  // Every rank's GPU agreed before any of them starts NCCL, so that one rank without a
  // GPU fails the job instead of leaving the others in init.
  int visible = 0;
  FABSCOPE_RETURN_IF_ERROR(ctx.agree(c->open_gpu(ctx, o, visible)));
  set_nccl_environment(ctx, o, log);
  c->library_ = library_text(ctx, o, c->device_name_, visible);
  auto id = c->shared_unique_id(ctx);
  if (!id.ok()) return id.status();
  if (Status agreed = ctx.agree(c->init_communicator(ctx, *id, log)); !agreed.ok()) {
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
