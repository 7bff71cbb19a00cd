#include "backend/nccl/nccl_backend.h"

#include <cuda_runtime.h>
#include <fmt/format.h>
#include <nccl.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <thread>

#include "backend/nccl/nccl_plan.h"
#include "core/clock.h"
#include "core/sizes.h"
#include "kernels/device_pattern.h"

namespace fabscope {

namespace {

// fabscope's types and operators as NCCL's (the values are NCCL's stable ABI).
ncclDataType_t nccl_type(DataType t) {
  switch (t) {
    case DataType::kInt8:
      return ncclInt8;
    case DataType::kUint8:
      return ncclUint8;
    case DataType::kInt32:
      return ncclInt32;
    case DataType::kUint32:
      return ncclUint32;
    case DataType::kInt64:
      return ncclInt64;
    case DataType::kUint64:
      return ncclUint64;
    case DataType::kHalf:
      return ncclFloat16;
    case DataType::kBfloat16:
      return ncclBfloat16;
    case DataType::kFloat:
      return ncclFloat32;
    case DataType::kDouble:
      return ncclFloat64;
  }
  return ncclFloat32;
}

ncclRedOp_t nccl_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum:
      return ncclSum;
    case ReduceOp::kProd:
      return ncclProd;
    case ReduceOp::kMin:
      return ncclMin;
    case ReduceOp::kMax:
      return ncclMax;
    case ReduceOp::kAvg:
      return ncclAvg;
  }
  return ncclSum;
}

std::string cuda_text(cudaError_t e) { return fmt::format("{} ({})", cudaGetErrorString(e), cudaGetErrorName(e)); }

Status cuda_check(cudaError_t e, std::string_view what) {
  if (e == cudaSuccess) return Status::Ok();
  return Status::Runtime(fmt::format("{} failed: {}", what, cuda_text(e)));
}

int nccl_version_code() {
  int v = 0;
  if (ncclGetVersion(&v) != ncclSuccess) return 0;
  return v;
}

std::string cuda_version_string(int v) { return fmt::format("{}.{}", v / 1000, v % 1000 / 10); }

// One collective call, in words, for errors: "allreduce float sum, 32 MiB (count
// 8388608), out-of-place".
std::string describe_call(const CollCall& c, int nranks) {
  const CollectiveInfo& ci = info(c.coll);
  const uint64_t bytes = static_cast<uint64_t>(c.count) * element_size(c.dtype) *
                         (ci.algbw_times_nranks ? static_cast<uint64_t>(nranks) : 1);
  return fmt::format("{} {}{}{}, {} (count {}), {}", ci.name, name(c.dtype), c.op ? " " : "", c.op ? name(*c.op) : "",
                     format_size(bytes), c.count, c.in_place ? "in-place" : "out-of-place");
}

// One rank's GPU, stream and NCCL communicator, shared by the collective backend and
// the p2p transport.
class NcclComm {
 public:
  static Result<std::unique_ptr<NcclComm>> create(const RankContext& ctx, const BackendOptions& o, const Logger& log);
  NcclComm(const NcclComm&) = delete;
  NcclComm& operator=(const NcclComm&) = delete;
  ~NcclComm() {
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

  Status abort_with(const std::string& message) {
    if (comm_ != nullptr && !aborted_) {
      ncclCommAbort(comm_);
      aborted_ = true;
    }
    return Status::Runtime(message);
  }

  // The result of an NCCL call: on ncclInProgress (a non-blocking communicator still
  // doing the call's host-side work) polls until NCCL is done with it, as NCCL
  // requires before the next call.
  Status check(ncclResult_t r, std::string_view what) {
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
        return abort_with(
            fmt::format("{} did not finish within --timeout {} s on {}; the NCCL communicator was aborted", what,
                        timeout_s_, where()));
      }
      std::this_thread::yield();
    }
  }

  // Polls until everything enqueued on the stream has run, NCCL reports an error, or
  // --timeout passes without completion; then aborts the communicator, so that no
  // rank hangs. `what` names the work waited for, in the error.
  Status wait(const std::function<std::string()>& what) {
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

  Result<std::unique_ptr<CapturedWork>> capture(const std::function<Status()>& enqueue);

 private:
  NcclComm() = default;

  Status failed(ncclResult_t r, std::string_view what) {
    const char* last = comm_ != nullptr ? ncclGetLastError(comm_) : ncclGetLastError(nullptr);
    return Status::Runtime(fmt::format("{} failed on {}: {}{}{}", what, where(), ncclGetErrorString(r),
                                       last && *last ? ": " : "", last ? last : ""));
  }

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

// GPU memory of this rank's device, filled and checked there by fabscope's kernels.
class GpuMemory final : public Memory {
 public:
  explicit GpuMemory(NcclComm& comm) : comm_(comm) {}
  std::string_view kind() const override { return "cuda"; }

  Status check_capacity(uint64_t bytes_per_rank, int /*ranks_here: one GPU each*/) const override {
    size_t free_bytes = 0;
    size_t total = 0;
    FABSCOPE_RETURN_IF_ERROR(cuda_check(cudaMemGetInfo(&free_bytes, &total), "cudaMemGetInfo"));
    // NCCL allocates its own buffers after ours; a tenth is left for it.
    if (bytes_per_rank <= free_bytes / 10 * 9) return Status::Ok();
    return Status::Invalid(fmt::format(
        "the sweep needs {} of GPU memory per rank, but GPU {} ({}) of {} has {} free of {}; lower the maximum "
        "size -e",
        format_size(bytes_per_rank), comm_.device(), comm_.device_name(), comm_.where(), format_size(free_bytes),
        format_size(total)));
  }

  Result<void*> allocate(size_t bytes) override {
    void* p = nullptr;
    const size_t n = bytes == 0 ? 1 : bytes;
    cudaError_t e = cudaMalloc(&p, n);
    if (e != cudaSuccess) {
      return Status::Runtime(fmt::format("cannot allocate {} on GPU {} of {}: {}", format_size(n), comm_.device(),
                                         comm_.where(), cuda_text(e)));
    }
    e = cudaMemset(p, 0, n);
    if (e != cudaSuccess) {
      cudaFree(p);
      return cuda_check(e, "cudaMemset");
    }
    return p;
  }

  void release(void* buffer) override { cudaFree(buffer); }

  Status fill(void* buffer, const PatternSpec& spec, std::span<const Segment> segments) override {
    return kernels::device_fill(buffer, spec, segments, comm_.stream());
  }

  Result<uint64_t> count_wrong(const void* buffer, const PatternSpec& spec,
                               std::span<const Segment> segments) override {
    return kernels::device_count_wrong(buffer, spec, segments, comm_.stream());
  }

 private:
  NcclComm& comm_;
};

// CUDA events recorded on the stream: the device time of each iteration.
class CudaEventClock final : public IterationClock {
 public:
  explicit CudaEventClock(cudaStream_t stream) : stream_(stream) {}
  ~CudaEventClock() override {
    for (cudaEvent_t e : events_) cudaEventDestroy(e);
  }
  std::string_view name() const override { return "cuda_event"; }
  Status reset(size_t count) override {
    while (events_.size() < count) {
      cudaEvent_t e = nullptr;
      FABSCOPE_RETURN_IF_ERROR(cuda_check(cudaEventCreate(&e), "cudaEventCreate"));
      events_.push_back(e);
    }
    return Status::Ok();
  }
  Status mark(size_t index) override {
    if (index >= events_.size()) return Status::Runtime(fmt::format("event marker {} was not reserved", index));
    return cuda_check(cudaEventRecord(events_[index], stream_), "cudaEventRecord");
  }
  Result<double> elapsed_us(size_t from, size_t to) override {
    if (from >= events_.size() || to >= events_.size()) {
      return Status::Runtime(fmt::format("event markers {} and {} were not reserved", from, to));
    }
    float ms = 0;
    FABSCOPE_RETURN_IF_ERROR(cuda_check(cudaEventElapsedTime(&ms, events_[from], events_[to]), "cudaEventElapsedTime"));
    return static_cast<double>(ms) * 1e3;
  }

 private:
  cudaStream_t stream_;
  std::vector<cudaEvent_t> events_;
};

class NcclBackend final : public Backend {
 public:
  explicit NcclBackend(std::unique_ptr<NcclComm> comm)
      : comm_(std::move(comm)), memory_(*comm_), clock_(comm_->stream()) {}
  ~NcclBackend() override = default;

  std::string_view name() const override { return "nccl"; }
  std::string library() const override { return comm_->library(); }
  Memory& memory() override { return memory_; }
  IterationClock* iteration_clock() override { return &clock_; }
  bool can_capture() const override { return true; }
  Result<std::unique_ptr<CapturedWork>> capture(const std::function<Status()>& enqueue) override {
    return comm_->capture(enqueue);
  }
  double watchdog_grace_s() const override { return 30; }
  Status inject_delay(uint64_t microseconds) override { return kernels::device_delay(microseconds, comm_->stream()); }
  bool in_place_checkable(Collective c) const override {
    return c != Collective::kAllToAll && c != Collective::kSendRecv;
  }

  Status run(const CollCall& c) override {
    last_ = c;
    ncclComm_t comm = comm_->comm();
    cudaStream_t stream = comm_->stream();
    const ncclDataType_t type = nccl_type(c.dtype);
    const ncclRedOp_t op = c.op ? nccl_op(*c.op) : ncclSum;
    NcclPlan plan = plan_nccl_call(c.coll, comm_->rank(), comm_->size(), c.root, c.count);
    switch (plan.call) {
      case NcclCall::kAllReduce:
        return comm_->check(ncclAllReduce(c.send, c.recv, c.count, type, op, comm, stream), "ncclAllReduce");
      case NcclCall::kAllGather:
        return comm_->check(ncclAllGather(c.send, c.recv, c.count, type, comm, stream), "ncclAllGather");
      case NcclCall::kReduceScatter:
        return comm_->check(ncclReduceScatter(c.send, c.recv, c.count, type, op, comm, stream), "ncclReduceScatter");
      case NcclCall::kBroadcast:
        return comm_->check(ncclBroadcast(c.send, c.recv, c.count, type, c.root, comm, stream), "ncclBroadcast");
      case NcclCall::kReduce:
        return comm_->check(ncclReduce(c.send, c.recv, c.count, type, op, c.root, comm, stream), "ncclReduce");
      case NcclCall::kGroupedSendRecv:
        break;
    }
    const size_t es = element_size(c.dtype);
    FABSCOPE_RETURN_IF_ERROR(comm_->check(ncclGroupStart(), "ncclGroupStart"));
    for (const PeerOp& p : plan.ops) {
      ncclResult_t r =
          p.send ? ncclSend(static_cast<const char*>(c.send) + p.offset * es, p.count, type, p.peer, comm, stream)
                 : ncclRecv(static_cast<char*>(c.recv) + p.offset * es, p.count, type, p.peer, comm, stream);
      if (r != ncclSuccess && r != ncclInProgress) {
        Status s = comm_->check(r, p.send ? "ncclSend" : "ncclRecv");
        (void)ncclGroupEnd();
        return s;
      }
    }
    return comm_->check(ncclGroupEnd(), fmt::format("ncclGroupEnd of {}", fabscope::name(c.coll)));
  }

  Status wait() override {
    return comm_->wait([this] { return fmt::format("NCCL {}", describe_call(last_, comm_->size())); });
  }

 private:
  std::unique_ptr<NcclComm> comm_;
  GpuMemory memory_;
  CudaEventClock clock_;
  CollCall last_;
};

// p2p over ncclSend/ncclRecv. Posted messages are issued together, as one NCCL group,
// when poll() is next called (NCCL needs a rank's sends and receives in one group to
// progress them together); a group's messages complete when its event does.
class NcclTransport final : public Transport {
 public:
  NcclTransport(std::unique_ptr<NcclComm> comm, std::vector<std::string> hosts)
      : comm_(std::move(comm)), memory_(*comm_), hosts_(std::move(hosts)) {}
  ~NcclTransport() override {
    for (auto& b : in_flight_) cudaEventDestroy(b.event);
    for (cudaEvent_t e : spare_) cudaEventDestroy(e);
  }

  int rank() const override { return comm_->rank(); }
  int size() const override { return comm_->size(); }
  Memory* memory() override { return &memory_; }
  std::string library() const override { return comm_->library(); }
  std::string describe_peer(int peer) const override {
    const std::string host = peer >= 0 && static_cast<size_t>(peer) < hosts_.size() ? hosts_[peer] : "?";
    return fmt::format("nccl rank {} ({})", peer, host);
  }

  Result<uint64_t> post_send(int peer, const void* buf, size_t bytes) override {
    return post(true, peer, const_cast<void*>(buf), bytes);
  }
  Result<uint64_t> post_recv(int peer, void* buf, size_t bytes) override { return post(false, peer, buf, bytes); }

  Status poll(std::vector<Completion>& done, int timeout_ms) override {
    if (!pending_.empty()) FABSCOPE_RETURN_IF_ERROR(flush());
    const double start = steady_now_s();
    const size_t before = done.size();
    for (unsigned spins = 1;; ++spins) {
      while (!in_flight_.empty()) {
        cudaError_t e = cudaEventQuery(in_flight_.front().event);
        if (e == cudaErrorNotReady) break;
        if (e != cudaSuccess)
          return comm_->abort_with(fmt::format("NCCL p2p on {}: CUDA error {}", comm_->where(), cuda_text(e)));
        const int64_t now = steady_now_ns();
        Batch& b = in_flight_.front();
        for (Completion& c : b.ops) {
          c.completed_ns = now;
          done.push_back(c);
        }
        spare_.push_back(b.event);
        in_flight_.pop_front();
        last_progress_s_ = steady_now_s();
      }
      if (done.size() > before || in_flight_.empty()) return Status::Ok();
      if (spins % 256 != 0) continue;
      const double now = steady_now_s();
      ncclResult_t state = ncclSuccess;
      if (ncclCommGetAsyncError(comm_->comm(), &state) == ncclSuccess && state != ncclSuccess &&
          state != ncclInProgress) {
        return comm_->abort_with(fmt::format("NCCL p2p failed on {}: {} ({}); the NCCL communicator was aborted",
                                             comm_->where(), ncclGetErrorString(state),
                                             ncclGetLastError(comm_->comm())));
      }
      if (comm_->timeout_s() > 0 && now - last_progress_s_ > comm_->timeout_s()) {
        return comm_->abort_with(fmt::format(
            "NCCL p2p on {}: {} messages made no progress for {} s (--timeout); the NCCL communicator was aborted",
            comm_->where(), in_flight_.front().ops.size(), comm_->timeout_s()));
      }
      if ((now - start) * 1e3 >= timeout_ms) return Status::Ok();
    }
  }

 private:
  struct Batch {
    cudaEvent_t event = nullptr;
    std::vector<Completion> ops;
  };
  struct Pending {
    Completion c;
    void* buf = nullptr;
  };

  Result<uint64_t> post(bool send, int peer, void* buf, size_t bytes) {
    if (peer < 0 || peer >= size() || peer == rank()) {
      return Status::Invalid(fmt::format("peer {} is not another rank of this job (0 to {})", peer, size() - 1));
    }
    Pending p;
    p.c.id = next_id_++;
    p.c.peer = peer;
    p.c.bytes = bytes;
    p.c.is_send = send;
    p.c.posted_ns = steady_now_ns();
    p.buf = buf;
    pending_.push_back(p);
    return p.c.id;
  }

  Status flush() {
    ncclComm_t comm = comm_->comm();
    cudaStream_t stream = comm_->stream();
    FABSCOPE_RETURN_IF_ERROR(comm_->check(ncclGroupStart(), "ncclGroupStart"));
    for (const Pending& p : pending_) {
      ncclResult_t r = p.c.is_send ? ncclSend(p.buf, p.c.bytes, ncclUint8, p.c.peer, comm, stream)
                                   : ncclRecv(p.buf, p.c.bytes, ncclUint8, p.c.peer, comm, stream);
      if (r != ncclSuccess && r != ncclInProgress) {
        Status s = comm_->check(r, p.c.is_send ? "ncclSend" : "ncclRecv");
        (void)ncclGroupEnd();
        return s;
      }
    }
    FABSCOPE_RETURN_IF_ERROR(comm_->check(ncclGroupEnd(), "ncclGroupEnd of p2p messages"));
    Batch b;
    if (!spare_.empty()) {
      b.event = spare_.back();
      spare_.pop_back();
    } else {
      FABSCOPE_RETURN_IF_ERROR(
          cuda_check(cudaEventCreateWithFlags(&b.event, cudaEventDisableTiming), "cudaEventCreateWithFlags"));
    }
    FABSCOPE_RETURN_IF_ERROR(cuda_check(cudaEventRecord(b.event, stream), "cudaEventRecord"));
    for (const Pending& p : pending_) b.ops.push_back(p.c);
    pending_.clear();
    if (in_flight_.empty()) last_progress_s_ = steady_now_s();
    in_flight_.push_back(std::move(b));
    return Status::Ok();
  }

  std::unique_ptr<NcclComm> comm_;
  GpuMemory memory_;
  std::vector<std::string> hosts_;
  std::vector<Pending> pending_;
  std::deque<Batch> in_flight_;
  std::vector<cudaEvent_t> spare_;
  uint64_t next_id_ = 1;
  double last_progress_s_ = 0;
};

}  // namespace

Availability probe_nccl_backend() {
  Availability a;
  a.compiled = true;
  const std::string version = nccl_version_string(nccl_version_code());
  auto count = kernels::device_count();
  if (!count.ok()) {
    a.detail = fmt::format("NCCL {} is built in, but {}", version, count.status().message());
    return a;
  }
  a.usable = true;
  a.detail = fmt::format("NCCL {}, {} CUDA GPU{} visible", version, *count, *count == 1 ? "" : "s");
  return a;
}

Result<std::unique_ptr<Backend>> create_nccl_backend(const RankContext& ctx, const BackendOptions& options,
                                                     const Logger& log) {
  auto comm = NcclComm::create(ctx, options, log);
  if (!comm.ok()) return comm.status();
  return std::unique_ptr<Backend>(new NcclBackend(std::move(*comm)));
}

Result<std::unique_ptr<Transport>> create_nccl_transport(const RankContext& ctx, const BackendOptions& options,
                                                         const Logger& log) {
  auto comm = NcclComm::create(ctx, options, log);
  if (!comm.ok()) return comm.status();
  std::vector<std::string> hosts;
  for (const RankInfo& r : ctx.ranks()) hosts.push_back(r.host);
  return std::unique_ptr<Transport>(new NcclTransport(std::move(*comm), std::move(hosts)));
}

}  // namespace fabscope
